extension ControlCenter {
    /// Asks for the placed controls of a kind to reload. Mirrors `ControlCenter.reloadControls(ofKind:)`:
    /// it returns at once, and ``run()`` carries the reload out.
    public nonisolated func reloadControls(ofKind kind: String) {
        requestReload(kind: kind)
        reloadRequests.yield(kind)
    }

    /// Asks for every placed control to reload. Mirrors `ControlCenter.reloadAllControls()`.
    public nonisolated func reloadAllControls() {
        requestReload(kind: nil)
        reloadRequests.yield(nil)
    }

    /// Every reload asked for with ``reloadControls(ofKind:)`` (the kind) or ``reloadAllControls()``
    /// (nil), from now on: a control extension sends them on to its daemon.
    public nonisolated func requestedReloads() -> AsyncStream<String?> { reloadRequests.subscribe() }

    /// The push path: outside state behind a kind changed (an MQTT state topic, another node), so
    /// its controls reload, as an APNs push invalidates controls on iOS.
    ///
    /// A push made by the kind's own action while it is performed (its device changed) is covered
    /// by the reload that follows every action, and one made while the kind's pushed reload has not
    /// started is covered by that reload: neither wakes anyone.
    public nonisolated func push(kind: String) {
        guard PerformScope.current?.covers(kind) != true, pushesPending.withLock({ $0.insert(kind).inserted }) else { return }
        reloadRequestCount.withLock { $0 += 1 }
        jobQueue.yield(.pushed(kind: kind))
    }

    /// A pushed kind's reload, starting now: pushes from here on need another.
    func reloadPushed(_ kind: String) async {
        pushesPending.withLock { _ = $0.remove(kind) }
        await reload(kind: kind)
    }

    /// Reloads the placed controls of a kind, or all when `kind` is nil, and returns once a reload
    /// that started after this call has finished. Requests made while a reload of the kind is in
    /// flight share one further reload.
    public func reload(kind: String?) async {
        guard let kind else {
            let kinds = placementOrder.compactMap { placed[$0]?.placement.kind }
            var seen = Set<String>()
            for kind in kinds where seen.insert(kind).inserted { await reload(kind: kind) }
            return
        }
        switch coalescer.request(kind) {
        case .coalesced:
            await withCheckedContinuation { reloadWaiters[kind, default: []].append($0) }
        case .startReload:
            repeat {
                let waiters = reloadWaiters.removeValue(forKey: kind) ?? []
                await reloadOnce(kind: kind)
                for waiter in waiters { waiter.resume() }
            } while coalescer.finished(kind) == .reloadAgain
            // Requests that arrived during the last pass were served by it.
            for waiter in reloadWaiters.removeValue(forKey: kind) ?? [] { waiter.resume() }
        }
    }

    /// How many callers of ``reload(kind:)`` wait for the further reload of a kind that is owed
    /// because they asked while one was in flight.
    public func pendingReloadRequests(kind: String) -> Int { reloadWaiters[kind]?.count ?? 0 }

    /// How many reloads have been asked of ``run()`` (by ``reloadControls(ofKind:)``,
    /// ``reloadAllControls()`` and ``push(kind:)``) since the center was made.
    public nonisolated var requestedReloadCount: UInt64 { reloadRequestCount.withLock { $0 } }

    /// Hands a reload to ``run()``.
    private nonisolated func requestReload(kind: String?) {
        reloadRequestCount.withLock { $0 += 1 }
        jobQueue.yield(.reload(kind: kind))
    }

    /// One reload pass over the placements of a kind.
    private func reloadOnce(kind: String) async {
        var failed = false
        for id in placementsOfKind[kind] ?? [] {
            if await refresh(id) == .failed { failed = true }
        }
        if failed {
            scheduleRetry(of: kind)
        } else {
            retryBackoff[kind] = nil
        }
    }

    /// A render of the kind failed: it is reloaded after the next backoff delay (once, however
    /// many of its placements failed meanwhile).
    func scheduleRetry(of kind: String) {
        var backoff = retryBackoff[kind] ?? retryPolicy
        let delay = backoff.recordFailure()
        retryBackoff[kind] = backoff
        if retryScheduled.insert(kind).inserted {
            schedule(.retry(kind: kind), at: clock.now.advanced(by: delay))
        }
    }

    /// Why each stale placed control is stale (what its provider threw last), by placement id.
    public var staleReasons: [String: String] {
        placed.compactMapValues { $0.stale ? $0.staleReason : nil }
    }

    /// A provider's error as a reason: a ``ControlError``'s particulars, anything else as it describes itself.
    static func reason(_ error: any Error) -> String {
        (error as? ControlError)?.detail ?? String(describing: error)
    }

    enum RefreshResult {
        case rendered
        case needsConfiguration
        case failed
        case gone
    }

    /// Renders one placed control's current value and publishes its presentation.
    @discardableResult
    func refresh(_ id: String) async -> RefreshResult {
        guard let control = placed[id], let definition = definitions[control.placement.kind] else { return .gone }
        let placement = control.placement
        let generation = control.generation
        if definition.isConfigurable, definition.promptsForUserConfiguration, placement.configuration.isEmpty {
            placed[id]?.needsConfiguration = true
            if control.snapshot == nil {
                let preview = try? await definition.render(.preview, configuration: [:])
                guard placed[id]?.generation == generation else { return .gone }
                placed[id]?.snapshot = preview
            }
            publish(id)
            return .needsConfiguration
        }
        let result: RefreshResult
        do {
            let snapshot = try await definition.render(.current, configuration: placement.configuration)
            guard placed[id]?.generation == generation else { return .gone }
            placed[id]?.snapshot = snapshot
            placed[id]?.stale = false
            placed[id]?.staleReason = nil
            placed[id]?.needsConfiguration = false
            result = .rendered
        } catch let error as ControlError where error.code == .needsConfiguration {
            guard placed[id]?.generation == generation else { return .gone }
            placed[id]?.needsConfiguration = true
            result = .needsConfiguration
        } catch {
            guard placed[id]?.generation == generation else { return .gone }
            if placed[id]?.snapshot == nil {
                let preview = try? await definition.render(.preview, configuration: placement.configuration)
                guard placed[id]?.generation == generation else { return .gone }
                placed[id]?.snapshot = preview
            }
            placed[id]?.stale = true
            placed[id]?.staleReason = Self.reason(error)
            result = .failed
        }
        publish(id)
        return result
    }
}
