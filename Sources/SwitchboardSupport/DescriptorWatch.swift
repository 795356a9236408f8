/// One descriptor watched by an ``EventLoop`` (``EventLoop/watch(_:paused:readable:cancelled:)``):
/// pause, resume or cancel it from any thread. It holds its loop until cancelled.
public final class DescriptorWatch: Sendable {
    let identifier: UInt64
    let readable: @Sendable (DescriptorWatch) -> Void
    let cancelled: @Sendable () -> Void
    /// The loop that watches the descriptor, and runs the handlers.
    public let loop: EventLoop

    init(identifier: UInt64, loop: EventLoop, readable: @escaping @Sendable (DescriptorWatch) -> Void, cancelled: @escaping @Sendable () -> Void) {
        self.identifier = identifier
        self.loop = loop
        self.readable = readable
        self.cancelled = cancelled
    }

    /// Stops polling the descriptor (its handler is not called) until ``resume()``.
    public func pause() { loop.setPaused(true, self) }

    /// Polls the descriptor again after ``pause()``.
    public func resume() { loop.setPaused(false, self) }

    /// Stops watching for good: the handler is not called again, and the cancellation runs once,
    /// on the loop's thread. A second call does nothing.
    public func cancel() { loop.cancel(self) }
}
