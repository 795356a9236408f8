#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes JSON that came from outside (MQTT payloads, socket lines, devices.json, the state
/// file) after checking what `JSONDecoder` itself must not be given: a raw control character
/// (U+0000–U+001F) inside a string, or anywhere but as white space. Such text is not JSON; the
/// Foundation of Swift 6.0 (Debian 13's) traps on it inside a string instead of throwing, which
/// would let one MQTT message end the daemon.
public enum CheckedJSON {
    /// Decodes `type` from `data`.
    /// - Throws: `DecodingError.dataCorrupted` for a control character (saying where), or what
    ///   `JSONDecoder` throws.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let offset = controlCharacterOffset(in: data) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "not JSON: a raw control character (byte \(offset)); escape it as \\u00XX"
            ))
        }
        return try JSONDecoder().decode(type, from: data)
    }

    /// Where the first control character JSON does not allow is: inside a string any byte below
    /// 0x20, outside one any but tab, line feed and carriage return. Nil when there is none.
    public static func controlCharacterOffset(in bytes: some Collection<UInt8>) -> Int? {
        var inString = false, escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                if byte < 0x20 { return offset }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                return offset
            }
        }
        return nil
    }
}
