import Foundation

/// Runs blocking work (a child process, blocking sockets, a paced loop of syscalls) on a thread of
/// its own and awaits its result. The concurrency pool is as wide as the machine has cores (two
/// here and in the HIL VM): a test that blocks one of its threads for seconds starves every other
/// test's tasks, as a HomeKit test's aiohomekit steps once kept a button test's debounce from
/// running for a minute.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs blocking work that cannot fail (waiting for a child process to end) on a thread of its
/// own and awaits its result.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
