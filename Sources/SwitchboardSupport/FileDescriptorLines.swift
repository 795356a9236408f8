import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lines read from a file descriptor (a pipe, a socket, standard input), as an `AsyncSequence`.
///
/// A `DispatchSource` wakes only when the descriptor is readable: nothing polls, and an idle
/// reader costs nothing. The sequence ends at end of file or when a line exceeds `maximumLineLength`
/// (the rest of an over-long line is discarded and the stream continues).
public struct FileDescriptorLines: AsyncSequence, Sendable {
    public typealias Element = Substring

    private let stream: AsyncStream<Substring>

    /// Starts reading `descriptor` (made non-blocking). The caller still owns and closes it.
    public init(descriptor original: Int32, maximumLineLength: Int = 1 << 20) {
        // The source watches its own duplicate, closed once it is cancelled, so the caller may
        // close `original` whenever it likes.
        let descriptor = dup(original)
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let queue = DispatchQueue(label: "switchboard.lines.\(descriptor)")
        let (stream, continuation) = AsyncStream<Substring>.makeStream(bufferingPolicy: .unbounded)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        let splitter = LineSplitter(maximumLineLength: maximumLineLength)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    for line in splitter.feed(buffer[0..<count]) { continuation.yield(line) }
                } else if count == 0 {
                    if let last = splitter.finish() { continuation.yield(last) }
                    source.cancel()
                    return
                } else {
                    let error = errno
                    if error == EINTR { continue }
                    if error != EAGAIN && error != EWOULDBLOCK { source.cancel() }
                    return
                }
            }
        }
        source.setCancelHandler {
            close(descriptor)
            continuation.finish()
        }
        let cancellation = SourceCancellation(source)
        continuation.onTermination = { _ in cancellation.cancel() }
        source.resume()
        self.stream = stream
    }

    public func makeAsyncIterator() -> AsyncStream<Substring>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Splits bytes into lines; used only on its reader's serial queue.
final class LineSplitter: @unchecked Sendable {
    // Invariant: only touched from one serial dispatch queue.
    private var pending: [UInt8] = []
    private var discarding = false
    private let maximumLineLength: Int

    init(maximumLineLength: Int) { self.maximumLineLength = maximumLineLength }

    func feed(_ bytes: ArraySlice<UInt8>) -> [Substring] {
        var lines: [Substring] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discarding { lines.append(Substring(decoding: pending, as: UTF8.self)) }
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

    func finish() -> Substring? {
        defer { pending.removeAll() }
        return pending.isEmpty || discarding ? nil : Substring(decoding: pending, as: UTF8.self)
    }
}

/// Holds a dispatch source so that any thread (a stream's termination handler, a deinit) can cancel it.
public final class SourceCancellation: @unchecked Sendable {
    // Invariant: only `cancel()` is called from other threads, and DispatchSource.cancel is thread-safe.
    private let source: any DispatchSourceProtocol
    public init(_ source: any DispatchSourceProtocol) { self.source = source }
    public func cancel() { source.cancel() }
}
