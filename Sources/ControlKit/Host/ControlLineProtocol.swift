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

        public init(_ change: ControlChange) {
            switch change {
            case .presentation(let presentation): event = "presentation"; self.presentation = presentation
            case .removed(let id): event = "removed"; self.id = id
            case .locked(let locked): event = "locked"; self.locked = locked
            }
        }
    }
}

/// A reply that is itself the error: a line that was not a command.
public struct ControlReplyError: Error, Sendable {
    public var reply: ControlReply
}
