#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

extension HAPJSON: Decodable {
    /// The value of a JSON text; nil when it is not JSON. Checked first (``CheckedJSON``): the
    /// Foundation of Swift 6.0 traps on a raw control character or a bad escape in a string, which
    /// one PUT of a paired controller would turn into the end of the daemon.
    public init?(parsing bytes: [UInt8]) {
        guard let value = try? CheckedJSON.decode(HAPJSON.self, from: Data(bytes)) else { return nil }
        self = value
    }

    /// A JSON value as it is: true/false as booleans, whole numbers as integers, other numbers as
    /// doubles.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([HAPJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: HAPJSON].self))
        }
    }
}
