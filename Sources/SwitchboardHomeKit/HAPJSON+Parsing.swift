import Foundation

extension HAPJSON {
    /// The value of a JSON text (Foundation's `JSONSerialization`); nil when it is not JSON.
    public init?(parsing bytes: [UInt8]) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
              let value = HAPJSON(foundation: object)
        else { return nil }
        self = value
    }

    private init?(foundation object: Any) {
        switch object {
        case is NSNull: self = .null
        case let number as NSNumber:
            // JSON's true and false are NSNumbers of a Bool (Objective-C type "c").
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else if let exact = Int(exactly: number.doubleValue), !String(describing: number).contains(".") {
                self = .int(exact)
            } else {
                self = .double(number.doubleValue)
            }
        case let text as String: self = .string(text)
        case let values as [Any]:
            var array: [HAPJSON] = []
            for value in values {
                guard let converted = HAPJSON(foundation: value) else { return nil }
                array.append(converted)
            }
            self = .array(array)
        case let members as [String: Any]:
            var object: [String: HAPJSON] = [:]
            for (key, value) in members {
                guard let converted = HAPJSON(foundation: value) else { return nil }
                object[key] = converted
            }
            self = .object(object)
        default: return nil
        }
    }
}
