#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A test's own connection to the daemon's socket, held open as long as the test likes: to send
/// any bytes at all and read what comes back, as a misbehaving or hostile client would.
public final class RawSocketConnection: Sendable {
    public let descriptor: Int32
    /// What arrived after the last line read.
    private let pending = Locked<[UInt8]>([])

    /// Connects to the socket at `path`; nil if it cannot.
    public init?(path: String) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, let address = UnixSocketAddress(path: path),
              address.withSocketAddress({ connect(descriptor, $0, $1) }) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Writes all of `text`; false if the connection closed (never SIGPIPE).
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return false }
        }
        return true
    }

    /// The next line the daemon sends, or nil at end of file or after `timeout`. Reads what has
    /// arrived in one call; what follows the line is kept for the next.
    public func readLine(timeout: Duration = .seconds(10)) -> String? {
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let line = pending.withLock { pending -> [UInt8]? in
                guard let end = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                defer { pending.removeSubrange(...end) }
                return Array(pending[..<end])
            }
            if let line { return String(decoding: line, as: UTF8.self) }
            guard ContinuousClock.now < deadline else { return nil }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, ContinuousClock.now.duration(to: deadline).components.seconds * 1000 + 1))
            guard poll(&ready, 1, min(remaining, 1000)) >= 0 || errno == EINTR else { return nil }
            guard ready.revents != 0 else { continue }
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.withLock { $0 += chunk[..<count] }
        }
    }
}
