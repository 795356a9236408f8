extension ControlCenter {
    /// Performs a placed control's action, then reloads its kind: the control reflects the new
    /// state only once `perform()` has returned.
    ///
    /// Requests for one control run one at a time, in the order they arrive.
    /// - Parameters:
    ///   - authenticated: whether the caller is authenticated (the local CLI socket is; an MQTT
    ///     message or a button press is not). While locked, only authenticated requests may
    ///     perform an intent that requires authentication.
    ///   - locked: the lock state to decide by: the one when the request arrived, for a request
    ///     that waited its turn (an unlock does not let through what arrived while locked); nil
    ///     for the lock state now.
    /// - Throws: ``ControlError``: unknown placement, needs configuration, disabled, wrong request,
    ///   authentication required, unavailable, or `.performFailed` with what `perform()` threw.
    public func perform(_ id: String, _ request: ControlRequest, authenticated: Bool = false, locked: Bool? = nil) async throws -> PerformOutcome {
        await acquirePerformTurn(id)
        defer { releasePerformTurn(id) }

        guard let control = placed[id] else { throw unknownPlacement(id) }
        let kind = control.placement.kind
        if control.needsConfiguration {
            let parameters = (try? await self.parameters(ofKind: kind))?.map(\.name) ?? []
            throw ControlError(.needsConfiguration, kind: kind, placement: id, detail: "choose its \(parameters.joined(separator: ", ")) first (switchboard configure \(id) --device …)")
        }
        guard let snapshot = control.snapshot else {
            throw ControlError(.unavailable, kind: kind, placement: id, detail: "its value could not be loaded; it is retried with backoff")
        }
        if snapshot.isDisabled {
            throw ControlError(.disabled, kind: kind, placement: id, detail: "its template is disabled for now (disabled(true)); nothing was done")
        }
        let newValue = try requestedValue(request, for: snapshot, id: id)
        if snapshot.action.authenticationPolicy.requiresAuthentication, locked ?? isLocked, !authenticated {
            throw ControlError(.authenticationRequired, kind: kind, placement: id, detail: "Switchboard is locked; unlock it (switchboard unlock) or use the local CLI")
        }

        let result: Result<any IntentResult, any Error>
        let scope = PerformScope(kind: kind)
        do {
            result = .success(try await PerformScope.$current.withValue(scope) {
                try await DeviceCenter.$controlKind.withValue(kind) {
                    try await DeviceCenter.$performsAuthenticated.withValue(authenticated) {
                        // An action that may block (a state file's fsync, a control's own code)
                        // runs off the center's loop, whoever asked; one that only suspends runs
                        // where it was asked.
                        guard snapshot.action.mayBlock else { return try await snapshot.action.perform(newValue: newValue) }
                        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await snapshot.action.perform(newValue: newValue) }
                    }
                }
            })
        } catch {
            result = .failure(error)
        }
        scope.close()
        // A toggle asked for the state it shows already changed nothing: no status says it is
        // on its way there ("Opening…" for a garage door that is open and was not pulsed).
        var changesState = true
        if case .toggle(let isOn, _, _) = snapshot.style, newValue == isOn { changesState = false }
        if case .success = result, placed[id] != nil, changesState {
            let until = clock.now.advanced(by: statusDuration)
            placed[id]?.statusUntil = until
            placed[id]?.statusRequested = newValue
            schedule(.statusExpired(id: id), at: until)
        }
        await reload(kind: kind)
        switch result {
        case .failure(let forwarded as ForwardedControlError):
            // Answered where it was to happen (a control on another node): that answer, whatever it is.
            throw ControlError(forwarded.error.code, kind: kind, placement: id, detail: forwarded.error.detail)
        case .failure(let error as ControlError) where error.code == .authenticationRequired || error.code == .disabled:
            // Refused where it was to happen (a control on another node that is locked): a
            // refusal here too, not a failure.
            throw ControlError(error.code, kind: kind, placement: id, detail: error.detail)
        case .failure(let error):
            // A device's error names no control: its detail says it all.
            let detail = (error as? ControlError).map { $0.kind == nil && $0.placement == nil ? $0.detail : $0.description } ?? String(describing: error)
            throw ControlError(.performFailed, kind: kind, placement: id, detail: detail)
        case .success(let value):
            let presentation = placed[id]?.presentation ?? compose(id)
            var dialog = (value as? IntentResultValue)?.dialog?.text
            if dialog == nil, snapshot.action.opensApp { dialog = "Open \(displayName(of: kind))" }
            return PerformOutcome(presentation: presentation, dialog: dialog)
        }
    }

    /// The new value a request asks of a control: a toggle's new state, nil for a button.
    private func requestedValue(_ request: ControlRequest, for snapshot: TemplateSnapshot, id: String) throws -> Bool? {
        switch (snapshot.style, request) {
        case (.toggle(_, _, _), .setValue(let value)): return value
        case (.toggle(let isOn, _, _), .toggle): return !isOn
        case (.button, .press): return nil
        case (.toggle, .press):
            throw ControlError(.wrongRequest, placement: id, detail: "is a toggle: send ON, OFF or TOGGLE, not PRESS")
        case (.button, _):
            throw ControlError(.wrongRequest, placement: id, detail: "is a button: send PRESS, not a value")
        }
    }

    private func acquirePerformTurn(_ id: String) async {
        if performQueues[id] == nil {
            performQueues[id] = []
            return
        }
        await withCheckedContinuation { performQueues[id, default: []].append($0) }
    }

    private func releasePerformTurn(_ id: String) {
        guard var waiting = performQueues[id], !waiting.isEmpty else {
            performQueues[id] = nil
            return
        }
        let next = waiting.removeFirst()
        performQueues[id] = waiting
        next.resume()
    }
}
