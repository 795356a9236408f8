#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// Any JSON value, kept as it was written so that validation can report every problem with its path.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in the order they were written when parsed by ``parseInWrittenOrder(_:)``; in the
    /// decoder's order otherwise.
    case object([(key: String, value: JSONValue)])

    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [(key: String, value: JSONValue)] = []
            for key in container.allKeys {
                members.append((key.stringValue, try container.decode(JSONValue.self, forKey: key)))
            }
            self = .object(members)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else { self = .string(try container.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            if let integer = Self.integer(value) { try container.encode(integer) } else { try container.encode(value) }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for member in members { try container.encode(member.value, forKey: AnyKey(member.key)) }
        }
    }

    /// A number written as an integer: one with no fraction, small enough to be exact.
    static func integer(_ value: Double) -> Int64? {
        value == value.rounded() && abs(value) < 1e15 ? Int64(value) : nil
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let elements): hasher.combine(elements)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    /// Parses JSON text. An object's members come in the decoder's order, which is not the
    /// text's: where the order means something, use ``parseInWrittenOrder(_:)``.
    public static func parse(_ data: Data) throws -> JSONValue {
        try CheckedJSON.decode(JSONValue.self, from: data)
    }

    /// Parses JSON text with every object's members in the order they are written (devices.json,
    /// where a scene sets its devices in that order and problems are reported in it).
    public static func parseInWrittenOrder(_ data: Data) throws -> JSONValue {
        let value = try parse(data)
        guard let orders = JSONSyntax.keyOrder(in: data) else { return value }
        return value.ordered(by: orders, at: [])
    }

    private func ordered(by orders: [[JSONSyntax.PathComponent]: [String]], at path: [JSONSyntax.PathComponent]) -> JSONValue {
        switch self {
        case .object(let members):
            let written = orders[path] ?? []
            let rank = Dictionary(written.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
            let sorted = members.enumerated().sorted { a, b in
                (rank[a.element.key] ?? Int.max, a.offset) < (rank[b.element.key] ?? Int.max, b.offset)
            }
            return .object(sorted.map { (key: $0.element.key, value: $0.element.value.ordered(by: orders, at: path + [.key($0.element.key)])) })
        case .array(let elements):
            return .array(elements.enumerated().map { $0.element.ordered(by: orders, at: path + [.index($0.offset)]) })
        default:
            return self
        }
    }

    /// What a value is, as a message names it: "a string", "an object".
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A member of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}
