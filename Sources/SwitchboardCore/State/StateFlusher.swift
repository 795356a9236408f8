import SwitchboardSupport

/// Puts saved state on storage at most once per `window` while changes come: the first save
/// after a flush starts the window, saves during it ride along, and the flush at its end covers
/// them all. Every save is on storage within two windows of being made; when the service stops,
/// it flushes at once.
public final class StateFlusher: Sendable {
    /// How long a save may wait for storage. One second by default.
    public let window: Duration
    private let flush: @Sendable () -> Void
    private let clock: AnyClock
    private let saves: AsyncStream<Void>
    private let saved: AsyncStream<Void>.Continuation

    public init(window: Duration = .seconds(1), clock: some Clock<Duration> = ContinuousClock(), flush: @escaping @Sendable () -> Void) {
        self.window = window
        self.flush = flush
        self.clock = AnyClock(clock)
        // One pending signal at most: saves while a window runs collapse into one more flush.
        (saves, saved) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// A save was made.
    public func noteSaved() { saved.yield() }

    /// Flushes after each window with saves, until cancelled; then flushes what is pending.
    public func run() async {
        var pending = false
        for await _ in saves {
            pending = true
            guard (try? await clock.sleep(for: window)) != nil else { break }
            flush()
            pending = false
        }
        if pending { flush() }
    }
}
