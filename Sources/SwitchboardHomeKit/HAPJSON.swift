/// A JSON value as HAP's bodies carry it (`application/hap+json`): what the attribute database
/// is made of and what a controller writes.
public indirect enum HAPJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([HAPJSON])
    case object([String: HAPJSON])

    /// The JSON text.
    public var encoded: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? String(value) : "null"
        case .string(let value): return HAPJSON.quoted(value)
        case .array(let values): return "[" + values.map(\.encoded).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { HAPJSON.quoted($0.key) + ":" + $0.value.encoded }.joined(separator: ",") + "}"
        }
    }

    /// A member of an object, or nil.
    public subscript(key: String) -> HAPJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// An integer (a whole double counts).
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    /// A boolean as HAP writes one: true/false or 1/0.
    public var boolValue: Bool? {
        switch self {
        case .bool(let value): return value
        case .int(let value) where value == 0 || value == 1: return value == 1
        default: return nil
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
