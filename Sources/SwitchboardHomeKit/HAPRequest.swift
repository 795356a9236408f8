/// One HTTP/1.1 request as HAP sends them: a method, a target with an optional query, headers
/// and a body of `Content-Length` bytes (HAP uses no chunked requests).
public struct HAPRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var body: [UInt8]
}

/// Why a request was refused before it was handled: the answer's HTTP status says it.
public struct HAPRequestError: Error, Equatable, CustomStringConvertible {
    /// 400 (malformed) or 413 (too large).
    public var status: Int
    public var detail: String
    public var description: String { "HAP request refused (\(status)): \(detail)" }
}

/// Cuts a stream of bytes into ``HAPRequest``s: headers of at most ``maximumHeaderLength``
/// bytes, bodies of at most ``maximumBodyLength``. Pure: the connection feeds it what it reads.
public struct HAPRequestParser: Sendable {
    public static let maximumHeaderLength = 8 * 1024
    public static let maximumBodyLength = 64 * 1024
    private var buffer: [UInt8] = []

    public init() {}

    /// Takes bytes that arrived.
    public mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// The next complete request (removed from the buffer), nil while it is incomplete; throws
    /// when it can never become a valid one.
    public mutating func next() throws(HAPRequestError) -> HAPRequest? {
        guard let end = headerEnd() else {
            if buffer.count > HAPRequestParser.maximumHeaderLength {
                throw HAPRequestError(status: 413, detail: "headers longer than \(HAPRequestParser.maximumHeaderLength) bytes")
            }
            return nil
        }
        guard end <= HAPRequestParser.maximumHeaderLength else {
            throw HAPRequestError(status: 413, detail: "headers longer than \(HAPRequestParser.maximumHeaderLength) bytes")
        }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ", omittingEmptySubsequences: true) ?? []
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), requestLine[1].hasPrefix("/") else {
            throw HAPRequestError(status: 400, detail: "expected a request line \"METHOD /path HTTP/1.1\"")
        }
        var length = 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw HAPRequestError(status: 400, detail: "expected a header \"Name: value\", found \"\(line.prefix(40))\"")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if name == "content-length" {
                guard let parsed = Int(value), parsed >= 0 else {
                    throw HAPRequestError(status: 400, detail: "Content-Length \"\(value.prefix(20))\" is not a length")
                }
                length = parsed
            } else if name == "transfer-encoding" {
                throw HAPRequestError(status: 400, detail: "Transfer-Encoding is not supported; send Content-Length")
            }
        }
        guard length <= HAPRequestParser.maximumBodyLength else {
            throw HAPRequestError(status: 413, detail: "body of \(length) bytes, at most \(HAPRequestParser.maximumBodyLength)")
        }
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        let target = requestLine[1]
        let path: Substring
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
        } else {
            path = target
        }
        return HAPRequest(method: String(requestLine[0]), path: String(path), query: query, body: body)
    }

    /// Takes the bytes not yet part of a request (those after pair-verify's M3, which are
    /// encrypted).
    public mutating func drain() -> [UInt8] {
        defer { buffer = [] }
        return buffer
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = 0
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result = result.dropFirst() }
        while result.last == " " || result.last == "\t" { result = result.dropLast() }
        return result
    }
}
