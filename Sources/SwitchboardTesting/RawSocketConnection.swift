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
        guard let descriptor = try? SystemCall.unixStreamSocket() else { return nil }
        guard let address = UnixSocketAddress(path: path), (try? SystemCall.connect(descriptor, to: address)) != nil else {
            SystemCall.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    /// Writes all of `text`; false if the connection closed (never SIGPIPE).
    @discardableResult
    public func send(_ text: String) -> Bool {
        (try? SystemCall.writeAll(Array(text.utf8), to: descriptor, isSocket: true)) != nil
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
            var ready = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard let polled = try? SystemCall.poll(&ready, timeout: min(SystemCall.milliseconds(until: deadline), 1000)) else { return nil }
            guard polled > 0 else { continue }
            guard let count = try? SystemCall.read(descriptor, into: &chunk), count > 0 else { return nil }
            pending.withLock { $0 += chunk[..<count] }
        }
    }
}
