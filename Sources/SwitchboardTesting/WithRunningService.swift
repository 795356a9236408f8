/// Runs a service (a `run()` that lasts until cancelled) for as long as `body` takes, then
/// cancels it and waits for it to stop. `body` runs on the caller's actor.
public func withRunningService<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ service: @escaping @Sendable () async -> Void,
    _ body: () async throws -> Result
) async rethrows -> Result {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await service() }
        defer { group.cancelAll() }
        return try await body()
    }
}
