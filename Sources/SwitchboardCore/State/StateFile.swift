#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What survives a restart: every output's last value, the placements people added or configured
/// at runtime, running auto-off deadlines, and the lock state.
public struct PersistedState: Sendable, Codable, Equatable {
    /// A placement made at runtime (`switchboard add`, `configure`).
    public struct Placement: Sendable, Codable, Equatable {
        public var id: String
        public var control: String
        public var space: String
        public var size: String?
        public var device: String?
    }

    public var version = 1
    /// Output device id → its last logical value.
    public var outputs: [String: Bool] = [:]
    /// Placements added at runtime, and configuration changes of configured ones.
    public var placements: [Placement] = []
    /// Placement ids from devices.json that were removed at runtime.
    public var removedPlacements: [String] = []
    /// Device id → when its auto-off fires, in seconds since 1970 (wall clock, so it survives a reboot).
    public var autoOff: [String: Double] = [:]
    public var locked = false

    public init() {}
}

/// The state file, written atomically: a temporary file is written and renamed over the old one,
/// so however the daemon dies (kill -9 included) the file is the old state or the new one, never
/// a mixture. ``save(_:)`` leaves the data to the kernel; ``flush()`` puts it on storage (a
/// ``StateFlusher`` calls it at most once a second while changes come), so a power cut loses at
/// most the last second of changes and a burst of commands costs one storage write, not one each.
public struct StateFile: Sendable {
    /// `<state-dir>/state.json`.
    public let path: String

    public init(directory: String) { path = directory + "/state.json" }

    /// The saved state; an empty state if there is none yet.
    /// - Throws: ``StateFileError`` if the file exists but cannot be read as state.
    public func load() throws -> PersistedState {
        guard let data = FileManager.default.contents(atPath: path) else { return PersistedState() }
        do {
            return try JSONDecoder().decode(PersistedState.self, from: data)
        } catch {
            throw StateFileError(path: path, reason: "is not a Switchboard state file (\(error)); move it aside to start from devices.json's restore policies")
        }
    }

    /// Replaces the saved state.
    public func save(_ state: PersistedState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(state)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw StateFileError(path: temporary, reason: "cannot be created: \(String(cString: strerror(errno)))") }
        var failure: String?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "cannot be written: \(String(cString: strerror(errno)))"
                    return
                }
                offset += written
            }
        }
        close(descriptor)
        if let failure { throw StateFileError(path: temporary, reason: failure) }
        guard rename(temporary, path) == 0 else {
            throw StateFileError(path: path, reason: "cannot be replaced: \(String(cString: strerror(errno)))")
        }
    }

    /// Puts the last saved state on storage: syncs the file, then its folder (for the rename).
    public func flush() {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        if file >= 0 {
            fsync(file)
            close(file)
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let folder = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}

/// The state file could not be read or written.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "state file \(path) \(reason)" }
}
