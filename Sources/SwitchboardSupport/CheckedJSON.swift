#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes JSON that came from outside (MQTT payloads, socket lines, devices.json, the state
/// file) after checking what `JSONDecoder` itself must not be given: bytes that are not UTF-8, and
/// a raw control character (U+0000–U+001F) inside a string or anywhere but as white space. Such
/// text is not JSON; the Foundation of Swift 6.0 (Debian 13's) traps on either inside a string
/// instead of throwing, which would let one MQTT message end the daemon.
public enum CheckedJSON {
    /// Decodes `type` from `data`.
    /// - Throws: `DecodingError.dataCorrupted` for a control character (saying where), or what
    ///   `JSONDecoder` throws.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "not JSON: not UTF-8"))
        }
        if let offset = controlCharacterOffset(in: data) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "not JSON: a control character, an unknown escape or a lone surrogate at byte \(offset)"
            ))
        }
        return try JSONDecoder().decode(type, from: data)
    }

    /// Where the first character JSON does not allow in this place is: inside a string any byte
    /// below 0x20, an escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`, or a UTF-16 surrogate
    /// escaped alone; outside a string any control character but tab, line feed and carriage
    /// return. Nil when there is none. (Swift 6.0's Foundation traps on each of the string cases.)
    public static func controlCharacterOffset(in input: some Collection<UInt8>) -> Int? {
        let bytes = Array(input)
        var index = 0, inString = false
        func hex(at start: Int) -> UInt32? {
            guard start + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[start..<start + 4] {
                guard let digit = UInt8(ascii: "0")...UInt8(ascii: "9") ~= byte ? byte - UInt8(ascii: "0")
                    : UInt8(ascii: "a")...UInt8(ascii: "f") ~= byte ? byte - UInt8(ascii: "a") + 10
                    : UInt8(ascii: "A")...UInt8(ascii: "F") ~= byte ? byte - UInt8(ascii: "A") + 10 : nil else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < bytes.count {
            let byte = bytes[index]
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true }
                else if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return index }
                index += 1
                continue
            }
            if byte < 0x20 { return index }
            if byte == UInt8(ascii: "\"") { inString = false; index += 1; continue }
            guard byte == UInt8(ascii: "\\") else { index += 1; continue }
            guard index + 1 < bytes.count else { return index }
            switch bytes[index + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                guard let unit = hex(at: index + 2) else { return index }
                if (0xDC00...0xDFFF).contains(unit) { return index }
                if (0xD800...0xDBFF).contains(unit) {
                    guard index + 12 <= bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u"),
                          let low = hex(at: index + 8), (0xDC00...0xDFFF).contains(low) else { return index }
                    index += 12
                } else {
                    index += 6
                }
            default:
                return index
            }
        }
        return nil
    }
}
