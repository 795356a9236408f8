import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes whole lines to a descriptor on its own serial queue, so that a slow reader never
/// blocks the cooperative thread pool and lines from many tasks never interleave: a socket
/// client, a control extension's standard input, an extension's standard output.
public final class QueuedLineWriter: Sendable {
    public let descriptor: Int32
    private let isSocket: Bool
    private let patience: Int32
    private let queue: DispatchQueue

    /// - Parameters:
    ///   - isSocket: send with `MSG_NOSIGNAL`, so a client that went away is an error, not SIGPIPE.
    ///   - patience: how long a non-blocking descriptor may stay full before the reader counts
    ///     as gone, in milliseconds.
    public init(descriptor: Int32, isSocket: Bool, patience: Int32 = 5000) {
        self.descriptor = descriptor
        self.isSocket = isSocket
        self.patience = patience
        queue = DispatchQueue(label: "switchboard.writer.\(descriptor)")
    }

    /// Writes a line and a newline; false if the reader went away or stayed full too long.
    @discardableResult
    public func write(_ line: String) async -> Bool {
        await withCheckedContinuation { continuation in
            enqueue(line) { continuation.resume(returning: $0) }
        }
    }

    /// Writes a line and a newline without waiting for it to be written.
    public func send(_ line: String) {
        enqueue(line) { _ in }
    }

    private func enqueue(_ line: String, done: @escaping @Sendable (Bool) -> Void) {
        let descriptor = self.descriptor, isSocket = self.isSocket, patience = self.patience
        queue.async {
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            var offset = 0
            while offset < bytes.count {
                let attempt: Int?
                do {
                    attempt = try SystemCall.writeIfReady(descriptor, bytes[offset...], isSocket: isSocket)
                } catch {
                    done(false)
                    return
                }
                if let written = attempt {
                    guard written > 0 else { done(false); return }
                    offset += written
                } else {
                    // The reader is slow: wait (on this queue, not the pool) until it can take more.
                    var poller = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
                    guard let ready = try? SystemCall.poll(&poller, timeout: patience), ready > 0 else { done(false); return }
                }
            }
            done(true)
        }
    }
}
