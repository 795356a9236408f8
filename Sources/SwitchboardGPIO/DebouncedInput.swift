import SwitchboardSupport

/// Debounces an input's edges as a service: ``run(_:)`` reads the raw edges, times each window on
/// the injected clock, and hands every accepted edge to the handler. Nothing polls: with no edges
/// it waits on the line's events. Where the kernel already debounces the line over the window
/// (a request with `debounce` through libgpiod 2.x), its edges are handed on as they come.
public struct DebouncedInput: Sendable {
    private let edges: GPIOEdgeEvents
    private let clock: AnyClock
    private let window: Duration
    private let initialValue: Bool

    /// Create it right after requesting the line: the line's value is read now, and the edges
    /// that follow are buffered until ``run(_:)``.
    /// - Parameters:
    ///   - request: an input requested with edge detection.
    ///   - window: the debounce window (default 20 ms).
    ///   - clock: the clock windows are timed on.
    public init(_ request: any GPIOLineRequest, window: Duration = .milliseconds(20), clock: some Clock<Duration> = ContinuousClock()) throws {
        self.edges = try request.edges()
        self.initialValue = try request.value()
        self.window = request.kernelDebounce >= window ? .zero : window
        self.clock = AnyClock(clock)
    }

    private enum Input: Sendable {
        case edge(GPIOEdgeEvent)
        /// The timer of the window that the edge numbered so started.
        case windowElapsed(Int)
    }

    /// Runs until the line's edges end (it was released) or the task is cancelled.
    public func run(_ handler: @Sendable (GPIOEdgeEvent) async -> Void) async {
        guard window > .zero else {
            var value = initialValue
            for await edge in edges where edge.value != value {
                value = edge.value
                await handler(edge)
            }
            return
        }
        let (inputs, continuation) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
        var debouncer = Debouncer(window: window, initialValue: initialValue)
        // Which window is open: a timer of one that an edge after its end closed early is stale.
        var windowNumber = 0
        await withDiscardingTaskGroup { group in
            let edges = self.edges
            group.addTask {
                for await edge in edges { continuation.yield(.edge(edge)) }
                continuation.finish()
            }
            for await input in inputs {
                switch input {
                case .edge(let edge):
                    // The window ended before this edge though its timer is not handled yet.
                    if debouncer.windowHasPassed(before: edge), let accepted = debouncer.windowElapsed() {
                        await handler(accepted)
                    }
                    if debouncer.edge(edge) == .startWindow {
                        windowNumber += 1
                        let clock = self.clock, deadline = clock.now.advanced(by: window), number = windowNumber
                        group.addTask {
                            guard (try? await clock.sleep(until: deadline)) != nil else { return }
                            continuation.yield(.windowElapsed(number))
                        }
                    }
                case .windowElapsed(let number):
                    guard number == windowNumber else { continue }
                    if let accepted = debouncer.windowElapsed() { await handler(accepted) }
                }
            }
            group.cancelAll()
        }
    }
}
