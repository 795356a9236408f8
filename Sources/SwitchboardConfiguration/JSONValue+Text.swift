import ControlKitCore
import SwitchboardSupport

extension JSONValue {
    /// The value as one line of JSON, as ``ControlLineProtocol/encodeLine(_:)`` writes it (keys
    /// sorted), written directly: a command's result and outcome go out on every command. A
    /// value holding a number with a fraction goes through the encoder.
    public var jsonLine: String {
        var out = ""
        guard append(to: &out) else { return ControlLineProtocol.encodeLine(self) }
        return out
    }

    /// Appends the value; false if it holds a number this writer leaves to the encoder.
    private func append(to out: inout String) -> Bool {
        switch self {
        case .null: out.append("null")
        case .bool(let value): JSONText.appendBool(value, to: &out)
        case .number(let value):
            guard let integer = Self.integer(value) else { return false }
            out.append(String(integer))
        case .string(let value): JSONText.appendString(value, to: &out)
        case .array(let elements):
            out.append("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(",") }
                guard element.append(to: &out) else { return false }
            }
            out.append("]")
        case .object(let members):
            out.append("{")
            for (index, member) in members.sorted(by: { JSONText.keyPrecedes($0.key, $1.key) }).enumerated() {
                if index > 0 { out.append(",") }
                JSONText.appendString(member.key, to: &out)
                out.append(":")
                guard member.value.append(to: &out) else { return false }
            }
            out.append("}")
        }
        return true
    }
}
