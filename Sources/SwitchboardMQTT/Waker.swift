import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// The connection thread's sleep: `poll(2)` on the broker socket and a pipe that other threads
/// write to wake it. Owns the pipe, and closes it once neither the connection nor its thread
/// holds it. (Glibc's `eventfd` is not visible to Swift.)
final class Waker: Sendable {
    private let reading: Int32
    private let writing: Int32

    /// - Throws: ``MQTTError`` `.failed` when the process is out of descriptors.
    init() throws {
        guard let (reading, writing) = Descriptors.pipe() else {
            throw MQTTError(.failed, call: "pipe", errno: errno, detail: "no pipe for the MQTT connection's thread: \(String(cString: strerror(errno))); raise the open-file limit")
        }
        for end in [reading, writing] {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        (self.reading, self.writing) = (reading, writing)
    }

    deinit {
        close(reading)
        close(writing)
    }

    /// Wakes the sleeping thread (or its next sleep, at once). A full pipe wakes it already.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writing, &byte, 1)
    }

    /// What woke the thread.
    struct Ready {
        /// Bytes (or an error, or the broker's end of the connection) to read on the socket.
        var readable = false
        var writable = false
    }

    /// Sleeps until `socket` (if not negative) is readable, or writable when `writable`, until
    /// woken, or until `deadline` (if any).
    func sleep(socket: Int32, writable: Bool, until deadline: ContinuousClock.Instant?) -> Ready {
        var descriptors = [pollfd(fd: reading, events: Int16(POLLIN), revents: 0)]
        if socket >= 0 { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN) | (writable ? Int16(POLLOUT) : 0), revents: 0)) }
        var timeout: Int32 = -1
        if let deadline {
            let remaining = ContinuousClock.now.duration(to: deadline)
            let (seconds, attoseconds) = remaining.components
            // Rounded up: waking a little early would only sleep again.
            timeout = remaining <= .zero ? 0 : Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        }
        var result: Int32
        repeat {
            result = poll(&descriptors, nfds_t(descriptors.count), timeout)
        } while result < 0 && errno == EINTR
        var ready = Ready()
        guard result > 0 else { return ready }
        if descriptors[0].revents & Int16(POLLIN) != 0 {
            var drained = [UInt8](repeating: 0, count: 256)
            while read(reading, &drained, drained.count) == drained.count {}
        }
        if descriptors.count > 1 {
            let events = descriptors[1].revents
            ready.readable = events & Int16(POLLIN | POLLERR | POLLHUP) != 0
            ready.writable = events & Int16(POLLOUT) != 0
        }
        return ready
    }
}
