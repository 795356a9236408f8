/// A long-running part of a program: a connection, a listener, a loop that serves requests.
///
/// ``run()`` runs until it is asked to stop, cleans up, and returns. A service is asked to stop
/// in one of two ways:
/// - a graceful shutdown, when it runs in a ``ServiceGroup``: it learns of it through
///   ``withGracefulShutdownHandler(isolation:operation:onGracefulShutdown:)`` or
///   ``gracefulShutdown()``, finishes what it is doing, and returns;
/// - the cancellation of its task: it returns as soon as it can.
///
/// A service that knows only cancellation (its `run()` ends when its task is cancelled) is
/// entered in a group with ``ServiceGroup/Entry/Stop/cancellation``: the group cancels it at its
/// turn. Throwing from `run()` says the service failed: its group stops and reports it.
public protocol Service: Sendable {
    /// Runs the service until it is asked to stop (see ``Service``), then returns.
    func run() async throws
}
