/// Fans elements out to any number of `AsyncStream` subscribers: control center changes, Action
/// button announcements.
public final class Broadcast<Element: Sendable>: Sendable {
    // Invariant: the continuations are only touched under the mutex; yielding to an
    // AsyncStream continuation never blocks.
    private let observers = Locked<(next: Int, continuations: [Int: AsyncStream<Element>.Continuation])>((0, [:]))

    public init() {}

    /// A new stream that receives every element yielded from now on, until it is dropped.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id = observers.withLock { state in
            let id = state.next
            state.next += 1
            state.continuations[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends an element to every subscriber.
    public func yield(_ element: Element) {
        observers.withLock { state in
            for continuation in state.continuations.values { continuation.yield(element) }
        }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let continuations = observers.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
