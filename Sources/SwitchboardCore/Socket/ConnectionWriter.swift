import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Writes whole lines to a client connection on its own serial queue, so that a slow client
/// never blocks the cooperative thread pool.
final class ConnectionWriter: Sendable {
    let descriptor: Int32
    private let queue: DispatchQueue

    init(descriptor: Int32) {
        self.descriptor = descriptor
        queue = DispatchQueue(label: "switchboard.socket.writer.\(descriptor)")
    }

    /// Writes a line and a newline; false if the client went away.
    func write(_ line: String) async -> Bool {
        let descriptor = self.descriptor
        return await withCheckedContinuation { continuation in
            queue.async {
                var bytes = Array(line.utf8)
                bytes.append(UInt8(ascii: "\n"))
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if written > 0 {
                        offset += written
                    } else if written < 0 && (errno == EINTR) {
                        continue
                    } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                        // The client reads slowly: wait (on this queue, not the pool) until it can take more.
                        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        if poll(&poller, 1, 5000) <= 0 { continuation.resume(returning: false); return }
                    } else {
                        continuation.resume(returning: false)
                        return
                    }
                }
                continuation.resume(returning: true)
            }
        }
    }
}
