#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
        let descriptor: Int32
        do {
            descriptor = try SystemCall.unixStreamSocket()
        } catch {
            throw Unreachable(path: path, reason: error.message)
        }
        defer { SystemCall.close(descriptor) }
        guard let address = UnixSocketAddress(path: path) else {
            throw Unreachable(path: path, reason: "the path is longer than \(UnixSocketAddress.maximumPathLength) bytes")
        }
        do {
            try SystemCall.connect(descriptor, to: address)
        } catch {
            throw Unreachable(path: path, reason: error.message)
        }
        // Sent with MSG_NOSIGNAL: a daemon that refused the connection (busy) and closed it
        // answers EPIPE here instead of killing the CLI with SIGPIPE; its reason is read below.
        try? SystemCall.writeAll(Array((line + "\n").utf8), to: descriptor, isSocket: true)
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count = (try? SystemCall.read(descriptor, into: &buffer)) ?? 0
            guard count > 0 else { throw Unreachable(path: path, reason: "the daemon closed the connection without replying") }
            reply.append(contentsOf: buffer[0..<count])
        }
        let lineEnd = reply.firstIndex(of: UInt8(ascii: "\n"))!
        return try JSONDecoder().decode(SocketReply.self, from: Data(reply[..<lineEnd]))
    }
}
