#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// The Home Assistant discovery topics the node last announced, so that an entity whose placement
/// is gone (removed at runtime, by a reload, or while the daemon was down) is removed from Home
/// Assistant, not left behind.
///
/// It is the MQTT bridge's bookkeeping about another system, so it lives in a file of its own,
/// `home-assistant.json` in the state directory, apart from the node's state (`state.json`). A
/// state directory of an older version, whose `state.json` kept the list, has it carried over once
/// (``init(directory:legacy:)``).
///
/// It is written without waiting for storage (a removal may be recorded on the MQTT connection's
/// thread): a power cut at worst loses the last change, and a record that cannot be read is
/// treated as none and written again at the next announcement.
public final class HomeAssistantRecord: Sendable {
    static let name = "home-assistant.json"

    private struct Contents: Codable {
        var version = 1
        var announced: [String]
    }

    /// Where the record is kept; nil keeps it in memory only (a node without a state directory).
    private let directory: OpenDirectory?
    // Invariant: only touched under the mutex; nil until the first announcement is recorded.
    private let topics: Locked<Set<String>?>
    /// Why the file could not be read, when it could not: the bridge then starts as if no record
    /// had been kept, and the next announcement writes a good one.
    public let problem: String?
    /// Whether an older version's list was taken from `state.json` and is now kept here.
    public let carriedOver: Bool

    /// The record in a state directory.
    /// - Parameter legacy: what `state.json` of an older version recorded; taken, and written to
    ///   this record's file, when the directory has no record of its own yet.
    init(directory: OpenDirectory?, legacy: [String]?) {
        self.directory = directory
        var problem: String?
        var loaded: Set<String>?
        var carriedOver = false
        if let directory {
            let path = directory.path + "/" + Self.name
            do throws(SystemCallError) {
                if let bytes = try directory.read(Self.name) {
                    do {
                        loaded = Set(try CheckedJSON.decode(Contents.self, from: Data(bytes)).announced)
                    } catch {
                        problem = "\(path) is not a record of announced entities (\(error)); it is written again at the next announcement"
                    }
                } else if let legacy {
                    loaded = Set(legacy)
                    do throws(SystemCallError) {
                        try directory.replace(Self.name, with: Self.encode(loaded ?? []), mode: 0o640, durable: false)
                        carriedOver = true
                    } catch {
                        problem = "\(path) cannot be written (\(error)); the record stays in state.json until it can"
                    }
                }
            } catch {
                problem = "\(path) cannot be read (\(error)); check its owner and mode"
            }
        } else {
            loaded = legacy.map(Set.init)
        }
        topics = Locked(loaded)
        self.problem = problem
        self.carriedOver = carriedOver
    }

    /// The topics last announced; nil when no announcement was ever recorded.
    public var announced: Set<String>? { topics.withLock { $0 } }

    /// Records `announced` as what the node announced; writes the file when it changed.
    /// - Throws: ``SystemCallError`` when the file cannot be written; the record in memory is
    ///   updated all the same.
    public func record(_ announced: Set<String>) throws(SystemCallError) {
        let changed = topics.withLock { topics in
            defer { topics = announced }
            return topics != announced
        }
        guard changed, let directory else { return }
        try directory.replace(Self.name, with: Self.encode(announced), mode: 0o640, durable: false)
    }

    private static func encode(_ topics: Set<String>) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(Contents(announced: topics.sorted()))) ?? Data("{}".utf8))
    }
}
