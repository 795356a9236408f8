/// Fans elements out to any number of subscribers: `AsyncStream`s (control center changes, Action
/// button announcements) and synchronous observers, called where the element is yielded (a
/// device's change reloading its controls: no task woken per change).
public final class Broadcast<Element: Sendable>: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<Element>.Continuation
        /// Which elements the stream receives; the others wake no one.
        let accepts: @Sendable (Element) -> Bool
    }

    private struct Subscribers {
        var next = 0
        var streams: [Int: Subscriber] = [:]
        var observers: [Int: @Sendable (Element) -> Void] = [:]
    }

    // Invariant: the subscribers are only touched under the mutex; yielding to an AsyncStream
    // continuation never blocks. Observers are called outside it, so that one may subscribe or
    // yield in turn.
    private let subscribers = Locked(Subscribers())

    public init() {}

    /// A new stream that receives every element yielded from now on that `accepts` takes, until
    /// it is dropped.
    public func subscribe(where accepts: @escaping @Sendable (Element) -> Bool = { _ in true }) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.streams[state.next] = Subscriber(continuation: continuation, accepts: accepts)
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `observer` with every element yielded from now on, on the yielding thread, until the
    /// returned observation is ended. `observer` must not block: it runs inside whatever yields.
    public func observe(_ observer: @escaping @Sendable (Element) -> Void) -> BroadcastObservation {
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.observers[state.next] = observer
            return state.next
        }
        return BroadcastObservation { [weak self] in
            self?.subscribers.withLock { _ = $0.observers.removeValue(forKey: id) }
        }
    }

    /// Sends an element to every subscriber.
    public func yield(_ element: Element) {
        let observers = subscribers.withLock { state in
            for subscriber in state.streams.values where subscriber.accepts(element) { subscriber.continuation.yield(element) }
            return state.observers.isEmpty ? [] : Array(state.observers.values)
        }
        for observer in observers { observer(element) }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        let continuations = subscribers.withLock { state in
            defer { state.streams = [:] }
            return state.streams.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }
}

/// A ``Broadcast`` observer's registration: ``end()`` stops its calls.
public struct BroadcastObservation: Sendable {
    private let ending: @Sendable () -> Void

    init(_ ending: @escaping @Sendable () -> Void) { self.ending = ending }

    /// No more calls after this returns (a call already under way may finish).
    public func end() { ending() }
}
