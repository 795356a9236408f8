#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// A file holding an MQTT password, as devices.json's `mqtt.passwordFile` and the CLI's
/// `--password-file` name it: its contents without surrounding whitespace (a trailing newline).
public enum PasswordFile {
    /// The password in the file at `path`, or nil if it cannot be read (the CLI's own file).
    public static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).trimmingCharacters() }
    }

    /// The password in the daemon's file at `path`, read only once ``SecretFile`` found it the
    /// daemon's own (or root's) private regular file.
    /// - Throws: ``SecretFileError`` with the fix.
    public static func readChecked(_ path: String) throws(SecretFileError) -> String {
        String(decoding: try SecretFile.read(path), as: UTF8.self).trimmingCharacters()
    }
}
