#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ControlKitCore
import SwitchboardCore
import SwitchboardSupport

/// A blocking client of the daemon's socket: one command, one reply. (A short-lived command-line
/// process, so plain blocking calls are right here.)
struct SocketClient {
    let path: String

    struct Unreachable: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String {
            "cannot reach switchboardd at \(path): \(reason)\nIs it running (systemctl status switchboardd)? Is --socket right? Is this user in the switchboard group?"
        }
    }

    func send(_ command: ControlCommand) throws -> SocketReply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try send(line: String(decoding: try encoder.encode(command), as: UTF8.self))
    }

    func send(line: String) throws -> SocketReply {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Unreachable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard let address = UnixSocketAddress(path: path) else {
            throw Unreachable(path: path, reason: "the path is longer than \(UnixSocketAddress.maximumPathLength) bytes")
        }
        let connected = address.withSocketAddress { connect(descriptor, $0, $1) }
        guard connected == 0 else { throw Unreachable(path: path, reason: String(cString: strerror(errno))) }
        var out = Array((line + "\n").utf8)
        var offset = 0
        while offset < out.count {
            // MSG_NOSIGNAL: a daemon that refused the connection (busy) and closed it answers
            // EPIPE here instead of killing the CLI with SIGPIPE; its reason is read below.
            let written = out[offset...].withUnsafeMutableBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            offset += written
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Unreachable(path: path, reason: "the daemon closed the connection without replying") }
            reply.append(contentsOf: buffer[0..<count])
        }
        let lineEnd = reply.firstIndex(of: UInt8(ascii: "\n"))!
        return try JSONDecoder().decode(SocketReply.self, from: Data(reply[..<lineEnd]))
    }
}
