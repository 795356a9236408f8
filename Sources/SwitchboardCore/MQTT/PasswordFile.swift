#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A file holding an MQTT password, as devices.json's `mqtt.passwordFile` and the CLI's
/// `--password-file` name it: its contents without surrounding whitespace (a trailing newline).
public enum PasswordFile {
    /// The password in the file at `path`, or nil if it cannot be read.
    public static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).trimmingCharacters() }
    }
}
