#if canImport(Glibc)
import Glibc
#endif

/// A polling thread's sleep (an ``EventLoop``'s, a ``DescriptorWatcher``'s): `poll(2)` on
/// descriptors and on a pipe that other threads write to wake it. Owns the pipe, and closes it
/// with itself. (Glibc's `eventfd` is not visible to Swift.)
public final class Waker: Sendable {
    private let reading: Int32
    private let writing: Int32

    /// - Throws: ``SystemCallError`` for `pipe` when the process is out of descriptors.
    public init() throws(SystemCallError) {
        let (reading, writing) = try SystemCallError.naming("pipe") { () throws(Errno) in try SystemCall.pipe() }
        for end in [reading, writing] { try? SystemCall.setNonBlocking(end) }
        (self.reading, self.writing) = (reading, writing)
    }

    deinit {
        SystemCall.close(reading)
        SystemCall.close(writing)
    }

    /// Wakes the sleeping thread (or its next sleep, at once). A full pipe wakes it already.
    public func wake() {
        _ = try? SystemCall.write(writing, [1][...])
    }

    /// What woke the thread.
    public struct Ready: Sendable {
        /// Bytes (or an error, or the peer's end of the connection) to read on the socket.
        public var readable = false
        public var writable = false

        public init(readable: Bool = false, writable: Bool = false) {
            self.readable = readable
            self.writable = writable
        }
    }

    /// Sleeps until `socket` (if not negative) is readable, or writable when `writable`, until
    /// woken, or until `deadline` (if any; `.zero` timeout when `now`).
    public func sleep(socket: Int32, writable: Bool, until deadline: ContinuousClock.Instant?, now: Bool = false) -> Ready {
        var descriptors: [pollfd] = []
        if socket >= 0 { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN) | (writable ? Int16(POLLOUT) : 0), revents: 0)) }
        sleep(watching: &descriptors, timeout: now ? 0 : deadline.map(SystemCall.milliseconds(until:)) ?? -1)
        var ready = Ready()
        if let events = descriptors.first?.revents {
            ready.readable = events & Int16(POLLIN | POLLERR | POLLHUP) != 0
            ready.writable = events & Int16(POLLOUT) != 0
        }
        return ready
    }

    /// Sleeps until one of `descriptors` has an event it asks for, until woken, or for `timeout`
    /// milliseconds (-1: no limit); each one's `revents` then says what it has (all 0 when
    /// nothing, or when `poll` failed).
    public func sleep(watching descriptors: inout [pollfd], timeout: CInt) {
        descriptors.append(pollfd(fd: reading, events: Int16(POLLIN), revents: 0))
        defer { descriptors.removeLast() }
        guard let result = try? SystemCall.poll(&descriptors, timeout: timeout), result > 0 else {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            return
        }
        if descriptors[descriptors.count - 1].revents & Int16(POLLIN) != 0 {
            var drained = [UInt8](repeating: 0, count: 256)
            while (try? SystemCall.read(reading, into: &drained)) == drained.count {}
        }
    }
}
