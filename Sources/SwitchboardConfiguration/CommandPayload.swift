#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardSupport

/// A command received on `<base>/controls/<id>/set`, parsed: `ON`, `OFF`, `TOGGLE`, `PRESS`, or
/// JSON `{"value": true}` (also `"value": "TOGGLE"` or `"PRESS"`), optionally with `"transaction"`.
public struct CommandPayload: Sendable, Equatable {
    /// The largest payload read on any subscribed topic.
    public static let maximumSize = 4096

    public var request: ControlRequest
    /// Echoed on `<base>/controls/<id>/result` with the outcome, when given.
    public var transaction: JSONValue?

    /// Why a payload is not a command: logged once per topic and reason, counted, and ignored.
    public enum Rejection: String, Sendable, Error, CaseIterable {
        case tooLarge = "larger than 4096 bytes"
        case notUTF8 = "not UTF-8"
        case unknownCommand = "not ON, OFF, TOGGLE, PRESS or a JSON object with \"value\""
        case badJSON = "JSON without a boolean \"value\" or one of \"ON\", \"OFF\", \"TOGGLE\", \"PRESS\""
    }

    public static func parse(_ bytes: [UInt8]) -> Result<CommandPayload, Rejection> {
        guard bytes.count <= maximumSize else { return .failure(.tooLarge) }
        if let request = asciiWord(bytes) { return .success(CommandPayload(request: request, transaction: nil)) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notUTF8) }
        let trimmed = text.trimmingCharacters()
        if let request = word(trimmed) { return .success(CommandPayload(request: request, transaction: nil)) }
        guard trimmed.hasPrefix("{"), let json = try? JSONValue.parse(Data(trimmed.utf8)), case .object = json else {
            return .failure(.unknownCommand)
        }
        let request: ControlRequest
        switch json["value"] {
        case .bool(let value)?: request = .setValue(value)
        case .string(let text)?:
            guard let parsed = word(text) else { return .failure(.badJSON) }
            request = parsed
        default: return .failure(.badJSON)
        }
        return .success(CommandPayload(request: request, transaction: json["transaction"]))
    }

    /// The common case without validating, trimming or searching for JSON: a bare word of ASCII
    /// letters (a string that short is stored inline, not allocated).
    private static func asciiWord(_ bytes: [UInt8]) -> ControlRequest? {
        guard (2...6).contains(bytes.count), bytes.allSatisfy(isASCIILetter) else { return nil }
        return word(String(decoding: bytes, as: UTF8.self))
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func word(_ text: String) -> ControlRequest? {
        switch text.uppercased() {
        case "ON": .setValue(true)
        case "OFF": .setValue(false)
        case "TOGGLE": .toggle
        case "PRESS": .press
        default: nil
        }
    }

    /// A command with its request and, if given, its transaction.
    package init(request: ControlRequest, transaction: JSONValue? = nil) {
        self.request = request
        self.transaction = transaction
    }
}

/// Reads a device's state from a message on its state topic (another system's).
public enum StatePayload {
    /// On or off, or nil if the payload says neither; read with `valueKey` (the state topic's
    /// when not given: nil reads the whole payload).
    public static func value(_ bytes: [UInt8], settings: MQTTDeviceSettings, valueKey: String?? = nil) -> Bool? {
        guard bytes.count <= CommandPayload.maximumSize, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let reading: JSONValue
        if let key = valueKey ?? settings.valueKey {
            guard let json = try? JSONValue.parse(Data(text.utf8)), let member = json[key] else { return nil }
            reading = member
        } else {
            reading = .string(text.trimmingCharacters())
        }
        switch reading {
        case .bool(let value): return value
        case .string(let value):
            if value.caseInsensitiveEquals(settings.onValue) { return true }
            if value.caseInsensitiveEquals(settings.offValue) { return false }
            return nil
        case .number(let number) where number == 0 || number == 1: return number == 1
        default: return nil
        }
    }
}

extension String {
    /// Whether the two are the same text but for case; ASCII text is compared without making lowercase copies.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let (a, b) = (utf8, other.utf8)
        guard a.allSatisfy({ $0 < 0x80 }), b.allSatisfy({ $0 < 0x80 }), a.count == b.count else {
            return lowercased() == other.lowercased()
        }
        return zip(a, b).allSatisfy { Self.asciiLowercase($0) == Self.asciiLowercase($1) }
    }

    /// An ASCII byte with an uppercase letter made lowercase.
    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
