import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Unix signals as an `AsyncSequence`: the default action of each is turned off and a
/// `DispatchSource` reports them instead.
public struct UnixSignals: AsyncSequence, Sendable {
    public typealias Element = Int32
    private let stream: AsyncStream<Int32>

    public init(_ signals: [Int32]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let cancellation = SignalSources(sources)
        continuation.onTermination = { _ in cancellation.cancel() }
        self.stream = stream
    }

    public func makeAsyncIterator() -> AsyncStream<Int32>.AsyncIterator { stream.makeAsyncIterator() }
}

/// Keeps a sequence's signal sources alive until it ends.
private final class SignalSources: @unchecked Sendable {
    // Invariant: written once in init; DispatchSource.cancel is thread-safe.
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
