import Dispatch

/// Runs blocking work (waiting for a child process to end) on a dispatch thread and awaits its
/// result, leaving the cooperative pool to the test's other tasks. Tests run in parallel on a pool
/// as wide as the machine has cores (two in the HIL VM): one test blocking a pool thread there
/// starves every other test's tasks, such as a debounce window's timer.
public func offCooperativePool<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}
