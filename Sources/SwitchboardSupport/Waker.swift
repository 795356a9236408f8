#if canImport(Glibc)
import Glibc
#endif

/// An ``EventLoop``'s sleep: `poll(2)` on descriptors and on a pipe that other threads write to
/// wake it. Owns the pipe, and closes it with itself. (Glibc's `eventfd` is not visible to Swift.)
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
