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
public struct FileDescriptorLines: AsyncSequence, Sendable {
    public typealias Element = FileDescriptorLine

    private let stream: AsyncStream<FileDescriptorLine>

    /// Starts reading `descriptor` (made non-blocking). The caller still owns and closes it.
    public init(descriptor original: Int32, maximumLineLength: Int = 1 << 20) {
        let (stream, continuation) = AsyncStream<FileDescriptorLine>.makeStream(bufferingPolicy: .unbounded)
        self.stream = stream
        // The source watches its own duplicate, closed once it is cancelled, so the caller may
        // close `original` whenever it likes.
        let descriptor = dup(original)
        guard descriptor >= 0 else {
            continuation.finish()
            return
        }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let queue = DispatchQueue(label: "switchboard.lines.\(descriptor)")
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
    }

    public func makeAsyncIterator() -> AsyncStream<FileDescriptorLine>.AsyncIterator { stream.makeAsyncIterator() }
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
    /// Resumes the source after a `suspend()` made on its own queue.
    public func resume() { source.resume() }
}
