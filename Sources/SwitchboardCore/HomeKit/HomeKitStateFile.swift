#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// `homekit.json` in the state directory: the ``HomeKitState``, written whole to a temporary
/// file (0600), synced, then renamed over the old one, so that a power cut leaves the old state
/// or the new one, never a torn file.
public struct HomeKitStateFile: Sendable {
    static let name = "homekit.json"
    let directory: OpenDirectory

    /// The file's path, for messages.
    public var path: String { directory.path + "/" + Self.name }

    public init(directory: StateDirectory) { self.directory = directory.directory }

    /// The file in a folder of one's own (tests, tools).
    public init(folder: String) throws(SystemCallError) { directory = try OpenDirectory(folder) }

    /// The saved state; nil when there is none yet.
    /// - Throws: ``HomeKitStateError`` when the file cannot be read or is not a HomeKit state
    ///   (torn, truncated, foreign): the bridge then stays off rather than forget its pairings.
    public func load() throws(HomeKitStateError) -> HomeKitState? {
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try directory.read(Self.name)
        } catch {
            throw HomeKitStateError(path: path, reason: "cannot be read (\(error)); check its owner and mode (0600, the daemon's user)")
        }
        guard let bytes else { return nil }
        do {
            return try CheckedJSON.decode(HomeKitState.self, from: Data(bytes))
        } catch {
            let what = bytes.isEmpty ? "is empty" : "is not a Switchboard HomeKit state (\(error))"
            throw HomeKitStateError(path: path, reason: "\(what); restore it from a backup, or move it aside to start the bridge as a new, unpaired accessory (every Home must then pair again)")
        }
    }

    /// Replaces the saved state.
    public func save(_ state: HomeKitState) throws(HomeKitStateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(state) } catch {
            throw HomeKitStateError(path: path, reason: "cannot be encoded: \(error)")
        }
        do throws(SystemCallError) {
            try directory.replace(Self.name, with: Array(data), mode: 0o600)
        } catch {
            throw HomeKitStateError(path: path, reason: "cannot be written (\(error)); free space in the state directory or fix its owner")
        }
    }
}

/// The HomeKit state cannot be read or written: what is wrong and what to do.
public struct HomeKitStateError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "HomeKit state \(path) \(reason)" }
}
