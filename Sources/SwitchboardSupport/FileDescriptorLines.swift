#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One line read from a file descriptor, or the place of one that was too long to keep.
public enum FileDescriptorLine: Sendable, Equatable {
    /// A line, without its newline.
    case line(Substring)
    /// A line longer than the reader's limit: its bytes were discarded as they came.
    case tooLong
}

/// The lines read from a file descriptor (a pipe, a socket, standard input), as an `AsyncSequence`.
///
/// The process's descriptor loop (``EventLoop/shared``) reads it when it is readable: nothing
/// polls in a loop, and an idle reader costs nothing. The sequence ends at end of file, or at once if the descriptor
/// cannot be watched (no descriptor left to duplicate it: EMFILE). A line longer than
/// `maximumLineLength` is discarded as it comes and reported as ``FileDescriptorLine/tooLong``;
/// reading goes on.
///
/// Reading keeps pace with the consumer: once 16 lines wait unread, the descriptor is not read
/// again until only 4 do, so a writer that sends faster than its lines are handled (a client
/// that sends commands without reading the replies) is held back by its own socket buffer
/// instead of growing this process's memory.
public struct FileDescriptorLines: AsyncSequence, Sendable {
    public typealias Element = FileDescriptorLine

    private let stream: AsyncStream<FileDescriptorLine>
    private let flow: LineFlow

    /// Starts reading `descriptor` (made non-blocking). The caller still owns and closes it.
    public init(descriptor original: Int32, maximumLineLength: Int = 1 << 20) {
        let (stream, continuation) = AsyncStream<FileDescriptorLine>.makeStream(bufferingPolicy: .unbounded)
        self.stream = stream
        let flow = LineFlow()
        self.flow = flow
        // The watch is on a duplicate, closed once it is cancelled, so the caller may
        // close `original` whenever it likes.
        guard let descriptor = try? SystemCall.duplicate(original) else {
            continuation.finish()
            return
        }
        try? SystemCall.setNonBlocking(descriptor)
        guard let loop = EventLoop.shared else {
            SystemCall.close(descriptor)
            continuation.finish()
            return
        }
        let splitter = LineSplitter(maximumLineLength: maximumLineLength)
        let watch = loop.watch(descriptor, paused: true, readable: { watch in
            watch.loop.withReadBuffer { buffer in
                // At most 16 reads a turn, so that a writer that never stops cannot keep the loop
                // from the other descriptors: what is left is read on the next turn.
                for _ in 0..<16 {
                    let read: Int?
                    do {
                        read = try SystemCall.readIfReady(descriptor, into: &buffer)
                    } catch {
                        watch.cancel()
                        return
                    }
                    guard let count = read else {
                        flow.emptied()
                        return
                    }
                    if count > 0 {
                        let lines = splitter.feed(buffer[0..<count])
                        for line in lines { continuation.yield(line) }
                        // Enough waits unread: stop reading until the consumer catches up.
                        if flow.produced(lines.count) { return }
                    } else {
                        if let last = splitter.finish() { continuation.yield(last) }
                        watch.cancel()
                        return
                    }
                }
            }
        }, cancelled: {
            SystemCall.close(descriptor)
            continuation.finish()
        })
        flow.watch = watch
        // A paused watch is cancelled as well (the loop forgets it): nothing to resume first.
        continuation.onTermination = { _ in watch.cancel() }
        watch.resume()
    }

    /// Stops reading: the sequence ends after the lines already read, even though the descriptor
    /// is still open at its other end (a writer's child that kept it).
    public func stop() {
        flow.watch?.cancel()
    }

    /// How many times reading found the descriptor empty: everything written to it so far had
    /// been read (though maybe not yet consumed). While it stays the same, the writer keeps ahead
    /// of the reader: whatever the consumer's pace, the writer writes faster.
    public var timesEmptied: Int { flow.timesEmptied }

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), flow: flow) }

    /// Hands out the lines, telling the reader each time one was taken.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<FileDescriptorLine>.AsyncIterator
        let flow: LineFlow

        public mutating func next() async -> FileDescriptorLine? {
            let line = await base.next()
            if line != nil { flow.consumed() }
            return line
        }
    }
}

/// How many lines wait unread, and whether the reader's watch is paused for it.
final class LineFlow: @unchecked Sendable {
    static let high = 16
    static let low = 4
    // Invariant: the counts are only touched under the mutex; `watch` is set once, before the
    // watch first runs, and paused and resumed only under the mutex, in balance. (Once it is
    // cancelled, pausing and resuming it do nothing.)
    private let state = Locked<(waiting: Int, suspended: Bool)>((0, false))
    private let emptiedCount = Locked(0)
    var watch: DescriptorWatch?

    var timesEmptied: Int { emptiedCount.withLock { $0 } }

    /// A read found the descriptor empty.
    func emptied() { emptiedCount.withLock { $0 += 1 } }

    /// Lines were handed on (on the loop's thread). Returns true when the reader is now
    /// suspended and must stop reading.
    func produced(_ count: Int) -> Bool {
        state.withLock { state in
            state.waiting += count
            guard state.waiting >= Self.high, !state.suspended else { return false }
            state.suspended = true
            watch?.pause()
            return true
        }
    }

    /// A line was taken by the consumer.
    func consumed() {
        state.withLock { state in
            state.waiting -= 1
            guard state.suspended, state.waiting <= Self.low else { return }
            state.suspended = false
            watch?.resume()
        }
    }
}

/// Splits bytes into lines; used only on the loop's thread.
final class LineSplitter: @unchecked Sendable {
    // Invariant: only touched from the descriptor loop's thread.
    private var pending: [UInt8] = []
    private var discarding = false
    private let maximumLineLength: Int

    init(maximumLineLength: Int) { self.maximumLineLength = maximumLineLength }

    func feed(_ bytes: ArraySlice<UInt8>) -> [FileDescriptorLine] {
        var lines: [FileDescriptorLine] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                lines.append(discarding ? .tooLong : .line(Substring(decoding: pending, as: UTF8.self)))
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(byte)
                if pending.count > maximumLineLength {
                    pending.removeAll()
                    discarding = true
                }
            }
        }
        return lines
    }

    func finish() -> FileDescriptorLine? {
        defer { pending.removeAll() }
        if discarding { return .tooLong }
        return pending.isEmpty ? nil : .line(Substring(decoding: pending, as: UTF8.self))
    }
}
