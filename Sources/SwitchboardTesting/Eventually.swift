/// Waits until `condition` holds, checking every `interval`, for at most `timeout`; returns
/// whether it held. It looks once more after the deadline: a test task that resumes late (the
/// cooperative pool busy with other tests on a loaded machine) still sees what came in time.
/// Cancellation ends the wait early, with that last look.
public func eventually(within timeout: Duration, every interval: Duration = .milliseconds(20),
                       _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        guard (try? await Task.sleep(for: interval)) != nil else { break }
    }
    return await condition()
}
