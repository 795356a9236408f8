/// Runs services together and stops them in the reverse of the order they started: a service
/// starts after those it depends on, and stops before them.
///
/// ``run()`` starts every service, in order, each in a child task, and runs until one of these:
/// - ``triggerGracefulShutdown()`` (or the graceful shutdown of the group that runs this one: a
///   group is itself a ``Service``);
/// - a service returns or throws: a service ends the group on purpose by returning (the daemon's
///   request loop returns on SIGTERM), unless its entry says its return leaves the others running
///   (``Entry/returnStopsGroup``); one that throws has failed, and always stops the group.
///
/// The group then shuts the services still running down one at a time, the last started first:
/// it asks each for a graceful shutdown (or cancels it, for ``Entry/Stop/cancellation``) and waits
/// for it to return before it asks the next. A service that has not returned
/// ``Entry/Stop/graceful(timeout:)``'s timeout after it was asked is cancelled.
///
/// When every service has returned, ``run()`` throws the first failure as a ``ServiceGroupError``
/// naming the service, or returns. Cancelling the task that runs the group cancels every service
/// at once (no order); ``run()`` then throws `CancellationError` once they have all returned.
public final class ServiceGroup: Service {
    /// A service of the group, with its name (for the log and errors) and how it is stopped.
    public struct Entry: Sendable {
        /// How the group stops a service.
        public enum Stop: Sendable {
            /// Asks it for a graceful shutdown; cancels it if it has not returned `timeout` later
            /// (nil: waits for it however long it takes).
            case graceful(timeout: Duration?)
            /// Cancels its task: for a service whose `run()` ends when cancelled.
            case cancellation
        }

        public var name: String
        public var service: any Service
        public var stop: Stop
        /// Whether the service's returning (without an error) stops the group: true for a service
        /// whose end is the group's end; false for one that may end early and leave the others
        /// running (a loop over a subscription that ends).
        public var returnStopsGroup: Bool

        public init(_ name: String, _ service: any Service, stop: Stop = .graceful(timeout: nil), returnStopsGroup: Bool = true) {
            self.name = name
            self.service = service
            self.stop = stop
            self.returnStopsGroup = returnStopsGroup
        }

        /// A service whose `run()` is `body`.
        public init(
            _ name: String, stop: Stop = .graceful(timeout: nil), returnStopsGroup: Bool = true, run body: @escaping @Sendable () async throws -> Void
        ) {
            self.init(name, ClosureService(body: body), stop: stop, returnStopsGroup: returnStopsGroup)
        }
    }

    private struct ClosureService: Service {
        let body: @Sendable () async throws -> Void
        func run() async throws { try await body() }
    }

    private let entries: [Entry]
    private let clock: AnyClock
    private let report: @Sendable (String) -> Void
    private let shutdownRequested = Doorbell()
    private let started = Locked(false)

    /// - Parameters:
    ///   - entries: the services in the order they start (each after those it depends on).
    ///   - clock: the clock shutdown timeouts run on.
    ///   - report: told, in a sentence, of a service cancelled after its timeout (for the log).
    public init(_ entries: [Entry], clock: some Clock<Duration> = ContinuousClock(), report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.entries = entries
        self.clock = AnyClock(clock)
        self.report = report
    }

    /// Asks the group to shut its services down, the last started first. From any thread, at any
    /// time (before ``run()`` too: it then starts them and shuts them down at once).
    public func triggerGracefulShutdown() { shutdownRequested.ring() }

    /// Runs the services until the group shuts down (see ``ServiceGroup``); runs once.
    /// - Throws: ``ServiceGroupError`` for the first service that failed; `CancellationError`
    ///   when the task was cancelled.
    public func run() async throws {
        precondition(started.withLock { started in defer { started = true }; return !started }, "a ServiceGroup runs once")
        let failure = await withGracefulShutdownHandler {
            await runServices()
        } onGracefulShutdown: { [shutdownRequested] in
            shutdownRequested.ring()
        }
        if let failure { throw failure }
        try Task.checkCancellation()
    }

    private enum Event: Sendable {
        case ended(Int, Ending)
        case shutdownRequested
    }

    /// How a service's `run()` ended.
    private struct Ending: Sendable {
        var error: (any Error)?
        /// Whether the group cancelled it (its turn, or its timeout).
        var cancelled: Bool
    }

    /// Runs the services and shuts them down; returns the first failure.
    private func runServices() async -> ServiceGroupError? {
        let signals = entries.map { _ in GracefulShutdownSignal() }
        return await withTaskGroup(of: Event.self) { group in
            for (index, entry) in entries.enumerated() {
                let signal = signals[index]
                group.addTask { .ended(index, await self.run(entry, signal: signal)) }
            }
            group.addTask { [shutdownRequested] in
                _ = await shutdownRequested.wait()
                return .shutdownRequested
            }
            var running = Array(repeating: true, count: entries.count)
            var failure: ServiceGroupError?
            func record(_ index: Int, _ ending: Ending) {
                running[index] = false
                guard let error = ending.error else { return }
                if error is CancellationError, ending.cancelled || Task.isCancelled { return }
                if failure == nil { failure = ServiceGroupError(code: .serviceFailed, service: entries[index].name, underlying: error) }
            }
            // Running: until the shutdown is asked for or a service ends the group.
            running: while let event = await group.next(), case .ended(let index, let ending) = event {
                record(index, ending)
                if ending.error == nil, !entries[index].returnStopsGroup { continue running }
                break running
            }
            // Shutting down: the last started first, each once the one after it has returned.
            for index in entries.indices.reversed() where running[index] {
                signals[index].trigger()
                while running[index], let event = await group.next() {
                    if case .ended(let other, let ending) = event { record(other, ending) }
                }
            }
            group.cancelAll()
            return failure
        }
    }

    /// Runs one service with its signal; cancels it when its way to stop says so.
    private func run(_ entry: Entry, signal: GracefulShutdownSignal) async -> Ending {
        enum Outcome: Sendable {
            case ended((any Error)?)
            case cancel
            case watchEnded
        }
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    try await GracefulShutdown.signal.withValue(signal) { try await entry.service.run() }
                    return .ended(nil)
                } catch {
                    return .ended(error)
                }
            }
            group.addTask {
                guard await signal.triggered() else { return .watchEnded }
                switch entry.stop {
                case .cancellation: return .cancel
                case .graceful(timeout: nil): return .watchEnded
                case .graceful(timeout: let timeout?):
                    guard (try? await self.clock.sleep(for: timeout)) != nil else { return .watchEnded }
                    self.report("\(entry.name) did not stop within \(timeout) of the graceful shutdown; cancelled")
                    return .cancel
                }
            }
            var ending = Ending(error: nil, cancelled: false)
            while let outcome = await group.next() {
                switch outcome {
                case .ended(let error):
                    ending.error = error
                    group.cancelAll()
                case .cancel:
                    ending.cancelled = true
                    group.cancelAll()
                case .watchEnded: break
                }
            }
            return ending
        }
    }
}

/// A service of a ``ServiceGroup`` failed: the group stopped the others.
public struct ServiceGroupError: Error, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The service's `run()` threw.
        case serviceFailed
    }

    public var code: Code
    /// The service's name in its group.
    public var service: String
    /// What it threw.
    public var underlying: any Error

    public var description: String { "\(service) failed: \(underlying)" }
}
