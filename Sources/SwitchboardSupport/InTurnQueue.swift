/// Work handled where it arrives, unless earlier work waits its turn in a task: then it waits
/// behind it, so that everything is handled in the order it came. The MQTT bridge's incoming
/// messages (a command after a lock is decided under the lock) and the control center's changes
/// (a presentation after a first announcement goes out after it) go through one each.
///
/// One thread at a time submits (the MQTT connection's thread; the center's executor); one task
/// serves.
public final class InTurnQueue<Element: Sendable>: Sendable {
    private let waiting: AsyncStream<Element>
    private let enqueue: AsyncStream<Element>.Continuation
    /// How many queued elements ``serve(_:)`` has not finished handling.
    private let unfinished = Locked(0)

    public init() {
        (waiting, enqueue) = AsyncStream.makeStream()
    }

    /// Handles `element` with `now` if nothing waits before it and `now` takes it (returns true);
    /// otherwise queues it for ``serve(_:)``.
    public func submit(_ element: Element, now: (Element) -> Bool) {
        if unfinished.withLock({ $0 == 0 }), now(element) { return }
        unfinished.withLock { $0 += 1 }
        enqueue.yield(element)
    }

    /// Handles the queued elements in order, each finished before the next, until cancelled.
    public func serve(_ handle: (Element) async -> Void) async {
        for await element in waiting {
            await handle(element)
            unfinished.withLock { $0 -= 1 }
        }
    }
}
