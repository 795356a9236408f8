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
        let (reading, writing): (Int32, Int32)
        do {
            (reading, writing) = try SystemCall.pipe()
        } catch {
            throw MQTTError(.failed, call: "pipe", errno: error, detail: "no pipe for the MQTT connection's thread: \(error.message); raise the open-file limit")
        }
        for end in [reading, writing] { try? SystemCall.setNonBlocking(end) }
        (self.reading, self.writing) = (reading, writing)
    }

    deinit {
        SystemCall.close(reading)
        SystemCall.close(writing)
    }

    /// Wakes the sleeping thread (or its next sleep, at once). A full pipe wakes it already.
    func wake() {
        _ = try? SystemCall.write(writing, [1][...])
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
        let timeout = deadline.map(SystemCall.milliseconds(until:)) ?? -1
        var ready = Ready()
        guard let result = try? SystemCall.poll(&descriptors, timeout: timeout), result > 0 else { return ready }
        if descriptors[0].revents & Int16(POLLIN) != 0 {
            var drained = [UInt8](repeating: 0, count: 256)
            while (try? SystemCall.read(reading, into: &drained)) == drained.count {}
        }
        if descriptors.count > 1 {
            let events = descriptors[1].revents
            ready.readable = events & Int16(POLLIN | POLLERR | POLLHUP) != 0
            ready.writable = events & Int16(POLLOUT) != 0
        }
        return ready
    }
}
