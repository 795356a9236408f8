import Foundation
import SwitchboardHomeKit
import SwitchboardSupport

/// Just enough of a HAP accessory's HTTP/1.1 server for pairing, on a loopback port: POST
/// /pair-setup and /pair-verify with `application/pairing+tlv8` bodies, answered by a
/// `PairSetup` and a `PairVerify` of each connection (one thread per connection). After
/// pair-verify the connection is encrypted (`HAPFrameSealer`, `HAPFrameOpener`) and serves one
/// fixed GET /accessories. The session keys of each verified connection are kept for the test.
final class HAPPairingListener: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set once in init; `verified` and `closed` are
    // only touched with `lock` held; the store is a `LockedPairingStore`.
    let port: Int
    let store = LockedPairingStore()
    private let listener: Int32
    private let accessory: AccessoryIdentity
    private let setupCode: SetupCode
    private let lock = NSLock()
    private var verified: [SessionKeys] = []
    private var closed = false

    init(accessory: AccessoryIdentity, setupCode: SetupCode) throws {
        self.accessory = accessory
        self.setupCode = setupCode
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw ControllerError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listening else { close(listener); throw ControllerError("no loopback listener: errno \(errno)") }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The session keys of every connection that completed pair-verify.
    var verifiedSessions: [SessionKeys] { lock.withLock { verified } }

    /// Stops accepting (the accept loop ends when the listener is shut down).
    func stop() {
        lock.withLock { closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            guard let connection = try? SystemCall.accept(listener) else { return }
            if lock.withLock({ closed }) { close(connection); return }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var setup = PairSetup(accessory: accessory, setupCode: setupCode, store: store)
        var verify = PairVerify(accessory: accessory, store: store)
        // After pair-verify the connection is encrypted: frames in, frames out.
        var sealer: HAPFrameSealer?
        var opener: HAPFrameOpener?
        var plaintext: [UInt8] = []
        while true {
            guard let (method, path, body) = nextRequest(&plaintext) else {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(connection, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                let bytes = Array(chunk.prefix(count))
                if opener != nil {
                    guard let opened = try? opener!.open(bytes) else { return }
                    plaintext += opened
                } else {
                    plaintext += bytes
                }
                continue
            }
            var response: (contentType: String, body: [UInt8])?
            var verifiedKeys: SessionKeys?
            switch (method, path) {
            case ("POST", "/pair-setup"):
                response = ("application/pairing+tlv8", setup.handle((try? TLV8(decoding: body)) ?? TLV8()).encoded())
            case ("POST", "/pair-verify"):
                let answer = verify.handle((try? TLV8(decoding: body)) ?? TLV8())
                response = ("application/pairing+tlv8", answer.encoded())
                if answer.pairingState == 4, answer[.error] == nil, let keys = verify.session?.keys {
                    lock.withLock { verified.append(keys) }
                    verifiedKeys = keys
                }
            case ("GET", "/accessories") where sealer != nil:
                response = ("application/hap+json", Array(HAPPairingListener.accessories.utf8))
            default:
                response = nil
            }
            var bytes: [UInt8]
            if let response {
                bytes = Array("HTTP/1.1 200 OK\r\nContent-Type: \(response.contentType)\r\nContent-Length: \(response.body.count)\r\n\r\n".utf8) + response.body
            } else {
                bytes = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
            }
            if sealer != nil {
                guard let sealed = try? sealer!.seal(bytes) else { return }
                bytes = sealed
            }
            guard write(connection, bytes) else { return }
            if let verifiedKeys {
                sealer = try? HAPFrameSealer(key: verifiedKeys.accessoryToController)
                opener = try? HAPFrameOpener(key: verifiedKeys.controllerToAccessory)
            }
        }
    }

    /// One bridged accessory with its Accessory Information service and name, as HAP's JSON.
    static let accessories = """
        {"accessories":[{"aid":1,"services":[{"iid":1,"type":"3E","characteristics":[\
        {"iid":2,"type":"23","perms":["pr"],"format":"string","value":"Switchboard"},\
        {"iid":3,"type":"14","perms":["pw"],"format":"bool"}]}]}]}
        """

    /// The method, path and body of the first complete request in `buffer` (removed from it), or
    /// nil while it is incomplete.
    private func nextRequest(_ buffer: inout [UInt8]) -> (String, String, [UInt8])? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = firstRange(of: separator, in: buffer) else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ").map(String.init) ?? []
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let bodyStart = end + separator.count
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return (requestLine.first ?? "", requestLine.dropFirst().first ?? "", body)
    }

    private func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

/// A pairing store shared by the listener's connections.
final class LockedPairingStore: PairingStore, @unchecked Sendable {
    // @unchecked Sendable: every member is read and written with `lock` held.
    private let lock = NSLock()
    private var stored: [Pairing] = []
    private var failures = 0

    var pairings: [Pairing] { lock.withLock { stored } }

    func add(_ pairing: Pairing) throws {
        lock.withLock {
            stored.removeAll { $0.identifier == pairing.identifier }
            stored.append(pairing)
        }
    }

    func remove(identifier: [UInt8]) {
        lock.withLock { stored.removeAll { $0.identifier == identifier } }
    }

    var failedPairSetupAttempts: Int {
        get { lock.withLock { failures } }
        set { lock.withLock { failures = newValue } }
    }
}
