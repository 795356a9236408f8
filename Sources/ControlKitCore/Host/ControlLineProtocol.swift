#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// Encodes and decodes the line protocol: one JSON object per line.
public enum ControlLineProtocol {
    /// Decodes a command line, or gives the reply that says why it is not one.
    public static func decodeCommand(_ line: Substring) -> Result<ControlCommand, ControlReplyError> {
        do {
            return .success(try CheckedJSON.decode(ControlCommand.self, from: Data(line.utf8)))
        } catch {
            let ops = ControlCommand.Operation.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(ControlReplyError(reply: .failure(
                code: "badCommand",
                message: "not a command: expected one JSON object per line with \"op\" one of \(ops)"
            )))
        }
    }

    /// One line of JSON, without the newline.
    public static func encodeLine<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return #"{"ok":false}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// An event line telling a listener that a placed control changed.
    public struct Event: Codable, Sendable, Hashable {
        public var event: String
        public var presentation: ControlPresentation?
        public var id: String?
        public var locked: Bool?
        /// For `reload`: the kind whose controls asked to reload (absent: all of them).
        public var kind: String?

        /// A control extension's `ControlCenter.reloadControls(ofKind:)` (or `reloadAllControls()`,
        /// with no kind), sent on to its daemon.
        public static func reload(kind: String?) -> Event {
            var event = Event(.locked(false))
            event.event = "reload"
            event.locked = nil
            event.kind = kind
            return event
        }

        public init(_ change: ControlChange) {
            switch change {
            case .presentation(let presentation): event = "presentation"; self.presentation = presentation
            case .removed(let id): event = "removed"; self.id = id
            case .locked(let locked): event = "locked"; self.locked = locked
            }
        }
    }
}

extension ControlLineProtocol {
    /// What a line of the line protocol is, by the key that marks it.
    public enum LineKind: Sendable, Equatable {
        /// A ``DeviceAnswer`` (`answer`), daemon to extension.
        case deviceAnswer
        /// A ``DeviceRequest`` (`device`), extension to daemon.
        case deviceRequest
        /// An ``Event`` (`event`).
        case event
        /// A ``ControlReply`` (`ok`).
        case reply
        /// A ``ControlCommand`` (`op`), or anything else.
        case command
    }

    private struct Marks: Decodable {
        var answer: Int?
        var device: String?
        var event: String?
        var ok: Bool?
    }

    /// What a line is; lines that are not JSON objects count as commands (and fail as such).
    public static func kind(of line: Substring) -> LineKind {
        guard let marks = try? CheckedJSON.decode(Marks.self, from: Data(line.utf8)) else { return .command }
        if marks.answer != nil { return .deviceAnswer }
        if marks.device != nil { return .deviceRequest }
        if marks.event != nil { return .event }
        if marks.ok != nil { return .reply }
        return .command
    }

    /// Decodes one line as `T`; nil if it is not one.
    public static func decode<T: Decodable>(_ type: T.Type, from line: Substring) -> T? {
        try? CheckedJSON.decode(type, from: Data(line.utf8))
    }
}

/// A reply that is itself the error: a line that was not a command.
public struct ControlReplyError: Error, Sendable {
    public var reply: ControlReply
}
