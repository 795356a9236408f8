import Dispatch
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
/// A `DispatchSource` wakes only when the descriptor is readable: nothing polls, and an idle
/// reader costs nothing. The sequence ends at end of file, or at once if the descriptor cannot be
/// watched (no descriptor left to duplicate it: EMFILE). A line longer than `maximumLineLength`
/// is discarded as it comes and reported as ``FileDescriptorLine/tooLong``; reading goes on.
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
        // The source watches its own duplicate, closed once it is cancelled, so the caller may
        // close `original` whenever it likes.
        guard let descriptor = try? SystemCall.duplicate(original) else {
            continuation.finish()
            return
        }
        try? SystemCall.setNonBlocking(descriptor)
        let queue = DispatchQueue(label: "switchboard.lines.\(descriptor)")
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let splitter = LineSplitter(maximumLineLength: maximumLineLength)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let read: Int?
                do {
                    read = try SystemCall.readIfReady(descriptor, into: &buffer)
                } catch {
                    source.cancel()
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
                    source.cancel()
                    return
                }
            }
        }
        source.setCancelHandler {
            SystemCall.close(descriptor)
            continuation.finish()
        }
        let cancellation = SourceCancellation(source)
        flow.source = cancellation
        continuation.onTermination = { _ in
            // A suspended source would never run its cancellation (and close its descriptor).
            flow.end()
            cancellation.cancel()
        }
        source.resume()
    }

    /// Stops reading: the sequence ends after the lines already read, even though the descriptor
    /// is still open at its other end (a writer's child that kept it).
    public func stop() {
        flow.end()
        flow.source?.cancel()
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

/// How many lines wait unread, and whether the reading source is suspended for it.
final class LineFlow: @unchecked Sendable {
    static let high = 16
    static let low = 4
    // Invariant: the counts are only touched under the mutex; `source` is set once, before the
    // source first runs, and suspended and resumed only under the mutex, in balance.
    private let state = Locked<(waiting: Int, suspended: Bool, ended: Bool)>((0, false, false))
    private let emptiedCount = Locked(0)
    var source: SourceCancellation?

    var timesEmptied: Int { emptiedCount.withLock { $0 } }

    /// A read found the descriptor empty.
    func emptied() { emptiedCount.withLock { $0 += 1 } }

    /// Lines were handed on (on the reader's queue). Returns true when the reader is now
    /// suspended and must stop reading.
    func produced(_ count: Int) -> Bool {
        state.withLock { state in
            state.waiting += count
            guard state.waiting >= Self.high, !state.suspended, !state.ended else { return false }
            state.suspended = true
            source?.suspend()
            return true
        }
    }

    /// A line was taken by the consumer.
    func consumed() {
        state.withLock { state in
            state.waiting -= 1
            guard state.suspended, state.waiting <= Self.low else { return }
            state.suspended = false
            source?.resume()
        }
    }

    /// The consumer is gone: never suspend again, and resume so that the source can be cancelled.
    func end() {
        state.withLock { state in
            state.ended = true
            guard state.suspended else { return }
            state.suspended = false
            source?.resume()
        }
    }
}

/// Splits bytes into lines; used only on its reader's serial queue.
final class LineSplitter: @unchecked Sendable {
    // Invariant: only touched from one serial dispatch queue.
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

/// Holds a dispatch source so that any thread (a stream's termination handler, a deinit, a timer)
/// can cancel or resume it.
public final class SourceCancellation: @unchecked Sendable {
    // Invariant: only `cancel()` and `resume()` are called from other threads; both are thread-safe
    // in Dispatch, and `resume()` only balances a `suspend()`.
    private let source: any DispatchSourceProtocol
    public init(_ source: any DispatchSourceProtocol) { self.source = source }
    public func cancel() { source.cancel() }
    /// Suspends the source (balanced by a later ``resume()``).
    public func suspend() { source.suspend() }
    /// Resumes the source after a ``suspend()``.
    public func resume() { source.resume() }
}
