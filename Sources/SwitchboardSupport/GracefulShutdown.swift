/// How a service learns that its ``ServiceGroup`` asks it to shut down gracefully: the group runs
/// each service with its own ``GracefulShutdownSignal`` as a task-local value, which child tasks
/// inherit. Outside a group there is none, and a service stops only when cancelled.
enum GracefulShutdown {
    static let signal = TaskLocal<GracefulShutdownSignal?>(wrappedValue: nil)
}

/// One service's "shut down now", given once by its group; handlers run when it is given (or at
/// once, for a handler added after).
final class GracefulShutdownSignal: Sendable {
    private struct State {
        var triggered = false
        var nextID = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    // Invariant: all state is behind the lock; handlers run after it is released, each once.
    private let state = Locked(State())

    /// Asks for the graceful shutdown: runs every handler, once. Later calls do nothing.
    func trigger() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.triggered else { return [] }
            state.triggered = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
    }

    var isTriggered: Bool { state.withLock { $0.triggered } }

    /// Adds a handler; if the shutdown was already asked for, runs it now and returns nil.
    func add(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLock { state -> Int? in
            guard !state.triggered else { return nil }
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
        if id == nil { handler() }
        return id
    }

    func remove(_ id: Int) { state.withLock { _ = $0.handlers.removeValue(forKey: id) } }

    /// Returns true once the shutdown is asked for, false if the task is cancelled first.
    func triggered() async -> Bool {
        let bell = Doorbell()
        guard let id = add({ bell.ring() }) else { return true }
        defer { remove(id) }
        return await bell.wait()
    }
}

/// Runs `operation`; if the service's group asks for a graceful shutdown meanwhile (or had asked
/// already), calls `handler` once, from the thread that asked: it should make `operation` finish
/// (stop a listener, finish a stream). Outside a ``ServiceGroup`` it only runs `operation`.
public func withGracefulShutdownHandler<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> T,
    onGracefulShutdown handler: @escaping @Sendable () -> Void
) async rethrows -> T {
    guard let signal = GracefulShutdown.signal.get(), let id = signal.add(handler) else { return try await operation() }
    defer { signal.remove(id) }
    return try await operation()
}

/// Returns once the service's group asks for a graceful shutdown (at once if it has).
/// - Throws: `CancellationError` if the task is cancelled first; outside a ``ServiceGroup``, that
///   is the only way it ends.
public func gracefulShutdown() async throws {
    if let signal = GracefulShutdown.signal.get() {
        if await signal.triggered() { return }
    } else {
        _ = await Doorbell().wait()
    }
    throw CancellationError()
}

/// Whether the service's group has asked for a graceful shutdown.
public var isShuttingDownGracefully: Bool { GracefulShutdown.signal.get()?.isTriggered ?? false }

/// Runs `operation` in a child task that is cancelled when the service's group asks for a
/// graceful shutdown (or when this task is cancelled), and returns what it returns: for work that
/// knows only cancellation, inside a service that shuts down gracefully.
public func cancelWhenGracefulShutdown<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
    await withTaskGroup(of: CancelledOnShutdown<T>.self) { group in
        group.addTask { .done(await operation()) }
        group.addTask {
            _ = try? await gracefulShutdown()
            return .shutdown
        }
        var result: T?
        while let outcome = await group.next() {
            group.cancelAll()
            if case .done(let value) = outcome { result = value }
        }
        guard let result else { preconditionFailure("the operation's task ended without a value") }
        return result
    }
}

/// What ended a child task of ``cancelWhenGracefulShutdown(_:)``.
private enum CancelledOnShutdown<T: Sendable>: Sendable {
    case done(T)
    case shutdown
}
