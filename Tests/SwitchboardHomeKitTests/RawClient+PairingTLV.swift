import SwitchboardHomeKit
import SwitchboardSupport

extension RawClient {
    /// POSTs a TLV8 body to `path` and decodes the TLV8 of the answer.
    func postTLV(_ path: String, _ body: TLV8) throws -> TLV8 {
        let bytes = body.encoded()
        try send(Array("POST \(path) HTTP/1.1\r\nContent-Type: application/pairing+tlv8\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8) + bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end.upperBound + length {
                    return try TLV8(decoding: Array(received[end.upperBound..<end.upperBound + length]))
                }
            }
            let count = try SystemCall.read(descriptor, into: &buffer)
            guard count > 0 else { throw ControllerError("\(path): the accessory closed the connection") }
            received += buffer.prefix(count)
        }
    }
}
