/// Waits until `condition` holds, checking every `interval`, for at most `timeout`; returns
/// whether it held. It looks a few more times after the deadline: a test task that resumes late
/// (the cooperative pool busy with other tests on a loaded machine) still sees what came in time.
/// Cancellation ends the wait early, with that last look.
public func eventually(within timeout: Duration, every interval: Duration = .milliseconds(20),
                       _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        guard (try? await Task.sleep(for: interval)) != nil else { break }
    }
    // Past the deadline, a few more looks, each after a short sleep that lets work queued on a
    // busy cooperative pool (two cores, a sanitizer, other suites) run first: a waiter woken late
    // must not fail for work that was queued long before its deadline.
    for _ in 0..<25 {
        if await condition() { return true }
        guard (try? await Task.sleep(for: .milliseconds(2))) != nil else { break }
    }
    return await condition()
}

/// Waits until `condition` holds, yielding between looks (for what other tasks make true within a
/// few turns of the pool, where `eventually`'s sleeps would slow the test), for at most `timeout`;
/// returns whether it held. A test that waits this way fails when the condition never comes
/// instead of spinning until the run is stopped.
public func yielding(within timeout: Duration = .seconds(30), until condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
