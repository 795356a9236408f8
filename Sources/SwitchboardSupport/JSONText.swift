/// JSON text written directly, byte for byte as `JSONEncoder` writes it with `.sortedKeys` and
/// `.withoutEscapingSlashes`: for what is encoded on every command (a control's presentation, a
/// command's result), where `JSONEncoder`'s generic machinery showed in the daemon's profile.
public enum JSONText {
    /// Appends `text` as a JSON string: `"` and `\` escaped, `\b \f \n \r \t` by name, other
    /// control characters as `\u00xx`, everything else (`/` and non-ASCII included) as it is.
    public static func appendString(_ text: String, to out: inout String) {
        out.append("\"")
        var plainStart = text.utf8.startIndex
        var index = plainStart
        let utf8 = text.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index = utf8.index(after: index)
                continue
            }
            out.append(contentsOf: text[plainStart..<index])
            switch byte {
            case UInt8(ascii: "\""): out.append("\\\"")
            case UInt8(ascii: "\\"): out.append("\\\\")
            case 0x08: out.append("\\b")
            case 0x0C: out.append("\\f")
            case 0x0A: out.append("\\n")
            case 0x0D: out.append("\\r")
            case 0x09: out.append("\\t")
            default:
                let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
                out.append("\\u00")
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0xF)])
            }
            index = utf8.index(after: index)
            plainStart = index
        }
        out.append(contentsOf: text[plainStart..<index])
        out.append("\"")
    }

    /// Appends a string, or `null` for nil.
    public static func appendString(_ text: String?, to out: inout String) {
        if let text { appendString(text, to: &out) } else { out.append("null") }
    }

    /// Appends `true`, `false`, or `null` for nil.
    public static func appendBool(_ value: Bool?, to out: inout String) {
        out.append(value.map { $0 ? "true" : "false" } ?? "null")
    }

    /// A member of a flat object: a string or a Boolean, either possibly `null`.
    public enum Field {
        case string(String?)
        case bool(Bool?)
    }

    /// A flat object of `fields`, written in the order given (which must be ``keyPrecedes(_:_:)``'s).
    public static func object(_ fields: [(key: String, value: Field)]) -> String {
        var out = "{"
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(",") }
            appendString(field.key, to: &out)
            out.append(":")
            switch field.value {
            case .string(let text): appendString(text, to: &out)
            case .bool(let value): appendBool(value, to: &out)
            }
        }
        out.append("}")
        return out
    }

    /// Whether `a` sorts before `b` as `JSONEncoder`'s `.sortedKeys` sorts keys: by their UTF-8
    /// bytes ("B" before "a", "b10" before "b9").
    public static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
