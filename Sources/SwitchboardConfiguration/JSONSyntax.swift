#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// A scan of JSON text without building values: where a text first goes wrong, for messages
/// (Foundation's decoder on Linux says only that the data is not valid JSON), run only on text
/// that failed to parse; and the order objects' members are written in (``keyOrder(in:)``).
enum JSONSyntax {
    /// The first error: its line and column (from 1, columns counted in characters) and what was
    /// expected there.
    struct Error: Equatable {
        var line: Int
        var column: Int
        var expected: String
    }

    static func firstError(in data: some Collection<UInt8>) -> Error? {
        var scanner = Scanner(bytes: Array(data))
        do {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            if scanner.index < scanner.bytes.count { throw scanner.fail("the end of the file after the top-level value") }
            return nil
        } catch let error as Failure {
            return Self.locate(error.offset, in: scanner.bytes, expected: error.expected)
        } catch {
            return nil
        }
    }

    /// A step from a JSON value to one inside it.
    enum PathComponent: Hashable {
        case key(String)
        case index(Int)
    }

    /// Each object's member names in the order they are written, by the object's path from the
    /// top-level value; nil when the text is not valid JSON. (Foundation's decoder gives an
    /// object's keys in an order of its own.)
    static func keyOrder(in data: some Collection<UInt8>) -> [[PathComponent]: [String]]? {
        var scanner = Scanner(bytes: Array(data))
        scanner.recordsKeys = true
        do {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            return scanner.orders
        } catch {
            return nil
        }
    }

    private struct Failure: Swift.Error {
        var offset: Int
        var expected: String
    }

    private static func locate(_ offset: Int, in bytes: [UInt8], expected: String) -> Error {
        var line = 1, column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return Error(line: line, column: column, expected: expected)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Whether member names are kept, with ``path`` and ``orders``.
        var recordsKeys = false
        var path: [PathComponent] = []
        var orders: [[PathComponent]: [String]] = [:]

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ expected: String) -> Failure { Failure(offset: index, expected: expected) }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws {
            guard current == byte else { throw fail(what) }
            index += 1
        }

        mutating func value(depth: Int) throws {
            guard depth < 512 else { throw fail("at most 512 levels of nesting") }
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): try number()
            default: throw fail("a value (an object, array, string, number, true, false or null)")
            }
        }

        mutating func object(depth: Int) throws {
            index += 1
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw fail("a member name in double quotes") }
                let start = index
                try string()
                let name = recordsKeys ? Self.decodeString(bytes[start..<index]) : nil
                skipSpace()
                try expect(UInt8(ascii: ":"), "\":\" after the member name")
                skipSpace()
                if let name {
                    orders[path, default: []].append(name)
                    path.append(.key(name))
                }
                try value(depth: depth + 1)
                if name != nil { path.removeLast() }
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "}"), "\",\" or \"}\" after a member")
                return
            }
        }

        mutating func array(depth: Int) throws {
            index += 1
            skipSpace()
            if current == UInt8(ascii: "]") { index += 1; return }
            var element = 0
            while true {
                skipSpace()
                if recordsKeys { path.append(.index(element)) }
                try value(depth: depth + 1)
                if recordsKeys { path.removeLast() }
                element += 1
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "]"), "\",\" or \"]\" after an element")
                return
            }
        }

        /// A string's text from its quoted bytes.
        static func decodeString(_ quoted: ArraySlice<UInt8>) -> String {
            let inner = quoted.dropFirst().dropLast()
            if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
            return (try? CheckedJSON.decode(String.self, from: Data(quoted))) ?? String(decoding: inner, as: UTF8.self)
        }

        mutating func string() throws {
            index += 1
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""): index += 1; return
                case UInt8(ascii: "\\"): index += 2
                case ..<0x20: throw fail("no control character inside a string (write \\n or \\t)")
                default: index += 1
                }
            }
            throw fail("the closing quote of a string")
        }

        mutating func literal(_ word: String) throws {
            let start = index
            for byte in word.utf8 {
                guard current == byte else { throw Failure(offset: start, expected: word) }
                index += 1
            }
        }

        mutating func number() throws {
            if current == UInt8(ascii: "-") { index += 1 }
            let digits = { (scanner: inout Scanner) -> Int in
                var count = 0
                while let byte = scanner.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { scanner.index += 1; count += 1 }
                return count
            }
            guard digits(&self) > 0 else { throw fail("a digit") }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw fail("a digit after the decimal point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw fail("a digit in the exponent") }
            }
        }
    }
}
