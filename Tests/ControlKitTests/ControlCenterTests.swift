import ControlKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// A toggle defined from closures, as devices.json controls are, whose reads a test can count and hold.
struct CountingToggle {
    struct State: Sendable {
        var isOn = false
        var renders = 0
        var gate: CheckedContinuation<Void, Never>?
        var holdNextRender = false
        var performed: [Bool] = []
        var performFailure: String?
    }

    let probe = Probe(State())
    let kind: String
    var privacySensitive = false
    var policy: IntentAuthenticationPolicy = .alwaysAllowed

    init(kind: String = "test.fan") { self.kind = kind }

    var definition: ControlDefinition {
        let probe = self.probe
        let privacy = privacySensitive
        let policy = self.policy
        return ControlDefinition(kind: kind, displayName: "Fan", description: nil, isConfigurable: false, parameters: { [] }) { mode, _ in
            if mode == .current {
                let hold = probe.update { state -> Bool in
                    state.renders += 1
                    defer { state.holdNextRender = false }
                    return state.holdNextRender
                }
                if hold { await withCheckedContinuation { continuation in probe.update { $0.gate = continuation } } }
            }
            let isOn = mode == .current && probe.value.isOn
            return TemplateSnapshot(
                title: "Fan",
                style: .toggle(isOn: isOn, on: ResolvedLabel(symbol: "fan.fill", status: "Fan on"), off: ResolvedLabel(symbol: "fan")),
                tint: .mint,
                isPrivacySensitive: privacy,
                action: ControlAction(title: "Fan", authenticationPolicy: policy) { newValue in
                    if let failure = probe.value.performFailure { throw ControlError(.performFailed, detail: failure) }
                    probe.update {
                        $0.isOn = newValue ?? false
                        $0.performed.append(newValue ?? false)
                    }
                    return .result()
                }
            )
        }
    }

    /// Releases a render held with `holdNextRender`, once it is waiting.
    func releaseHeldRender() async {
        while true {
            if let gate = probe.update({ state -> CheckedContinuation<Void, Never>? in
                defer { state.gate = nil }
                return state.gate
            }) {
                gate.resume()
                return
            }
            await Task.yield()
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct ControlCenterTests {
    @Test func burstOfReloadsDuringAnInFlightReloadCostsOneMore() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        #expect(fan.probe.value.renders == 1)

        fan.probe.update { $0.holdNextRender = true }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await center.reload(kind: fan.kind) }
            #expect(await yielding(until: { fan.probe.value.gate != nil }))
            for _ in 0..<50 { group.addTask { await center.reload(kind: fan.kind) } }
            // Let every request reach the center before the held reload finishes.
            #expect(await yielding(until: { await center.pendingReloadRequests(kind: fan.kind) >= 50 }))
            await fan.releaseHeldRender()
            try await group.waitForAll()
        }
        #expect(fan.probe.value.renders == 3)
    }

    @Test func pushReloadsTheControlsOfThatKind() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        var changes = ChangeRecorder(center)
        try await withRunningService({ await center.run() }) {
            fan.probe.update { $0.isOn = true }
            center.push(kind: fan.kind)
            let pushed = try #require(await changes.nextPresentation())
            #expect(pushed.value == true)
            #expect(pushed.symbol == "fan.fill")
            #expect(pushed.status == nil)
        }
    }

    @Test func privacySensitiveControlIsRedactedWhileLocked() async throws {
        var fan = CountingToggle()
        fan.privacySensitive = true
        fan.probe.update { $0.isOn = true }
        let center = ControlCenter()
        try await center.register([fan.definition])
        let unlocked = try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        #expect(unlocked.valueText == "On" && unlocked.tint == .mint && !unlocked.redacted)

        var changes = ChangeRecorder(center)
        await center.setLocked(true)
        #expect(await changes.next() == .locked(true))
        let locked = try #require(await changes.nextPresentation())
        #expect(locked == ControlPresentation(
            id: "fan", kind: fan.kind, template: .toggle, space: .controlCenter, size: .medium,
            displayName: "Fan", title: "Fan", value: nil, valueText: nil, symbol: "fan", tint: nil,
            status: nil, actionHint: "Hold for Fan", redacted: true
        ))
        await center.setLocked(false)
        #expect(try await center.presentation(of: "fan") == unlocked)
    }

    @Test func controlsThatAreNotPrivacySensitiveShowTheirStateWhileLocked() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        await center.setLocked(true)
        let shown = try await center.presentation(of: "fan")
        #expect(!shown.redacted && shown.valueText == "Off" && shown.actionHint == "Hold to Turn On Fan")
    }

    /// A device change made by a control's own action pushes its kind: the reload after the action
    /// covers it, so it asks nothing of `run()`. A task the action leaves running pushes as usual.
    @Test func aPushByTheKindsOwnActionIsCoveredByTheReloadAfterIt() async throws {
        let center = ControlCenter()
        let (later, release) = AsyncStream<Void>.makeStream()
        let pushedLater = Probe(false)
        let definition = ControlDefinition(kind: "test.relay", displayName: "Relay", description: nil, isConfigurable: false, parameters: { [] }) { _, _ in
            TemplateSnapshot(
                title: "Relay", style: .toggle(isOn: false, on: ResolvedLabel(symbol: "power"), off: ResolvedLabel(symbol: "power")),
                action: ControlAction(title: "Relay") { _ in
                    center.push(kind: "test.relay")
                    center.push(kind: "test.other")
                    Task {
                        for await _ in later { break }
                        center.push(kind: "test.relay")
                        pushedLater.update { $0 = true }
                    }
                    return .result()
                }
            )
        }
        try await center.register([definition])
        try await center.place(kind: "test.relay", in: .controlCenter, id: "relay")
        let before = center.requestedReloadCount
        _ = try await center.perform("relay", .setValue(true))
        #expect(center.requestedReloadCount == before + 1, "only the other kind's push")
        release.yield()
        #expect(await yielding(until: { pushedLater.value }))
        #expect(center.requestedReloadCount == before + 2)
    }

    /// A storm of pushes of a kind while its pushed reload has not started asks one reload of
    /// `run()`; that reload shows the last state; a push after it started asks another.
    @Test func pushesWhileTheKindsReloadWaitsAskForOneReload() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        let before = center.requestedReloadCount
        for index in 1...1_000 {
            fan.probe.update { $0.isOn = index % 2 == 0 }
            center.push(kind: fan.kind)
        }
        #expect(center.requestedReloadCount == before + 1)
        var changes = ChangeRecorder(center)
        try await withRunningService({ await center.run() }) {
            let last = try #require(await changes.nextPresentation())
            #expect(last.value == true)
            fan.probe.update { $0.isOn = false }
            center.push(kind: fan.kind)
            let next = try #require(await changes.nextPresentation())
            #expect(next.value == false)
        }
        #expect(center.requestedReloadCount == before + 2)
        #expect(fan.probe.value.renders == 3, "the placement's, and one per pushed reload")
    }

    @Test func requestsForOneControlApplyInArrivalOrder() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        let values = (0..<40).map { $0 % 3 == 0 }
        for value in values {
            _ = try await center.perform("fan", .setValue(value))
        }
        #expect(fan.probe.value.performed == values)
        #expect(try await center.presentation(of: "fan").value == values.last)
    }

    @Test func theCenterAndItsObserversRunOnTheLoopItIsGiven() async throws {
        let loop = try EventLoop(name: "test.center")
        let fan = CountingToggle()
        let center = ControlCenter(loop: loop)
        let observed = Probe<[Bool]>([])
        let observation = center.observeChanges { _ in observed.update { $0.append(loop.inEventLoop) } }
        defer { observation.end() }
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        _ = try await center.perform("fan", .setValue(true))
        #expect(await center.runsOnItsLoop())
        #expect(!observed.value.isEmpty && observed.value.allSatisfy { $0 })
        // Centers made without a loop share the process's loop for centers.
        let other = ControlCenter()
        #expect(other.loop === ControlCenter.defaultLoop && other.loop !== loop)
        #expect(await other.runsOnItsLoop())
    }

    @Test(arguments: [false, true])
    func anActionThatMayBlockRunsOffTheLoopAndOneThatSuspendsOnIt(mayBlock: Bool) async throws {
        let loop = try EventLoop(name: "test.actions")
        let center = ControlCenter(loop: loop)
        let ranOnLoop = Probe<[Bool]>([])
        let definition = ControlDefinition(kind: "test.valve", displayName: "Valve", description: nil, isConfigurable: false, parameters: { [] }) { _, _ in
            TemplateSnapshot(
                title: "Valve", style: .toggle(isOn: false, on: ResolvedLabel(symbol: "drop.fill"), off: ResolvedLabel(symbol: "drop")),
                action: ControlAction(title: "Valve", mayBlock: mayBlock) { _ in
                    ranOnLoop.update { $0.append(loop.inEventLoop) }
                    return .result()
                }
            )
        }
        try await center.register([definition])
        try await center.place(kind: "test.valve", in: .controlCenter, id: "valve")
        // Asked from a task that runs on the loop, as the MQTT bridge's command lanes do.
        try await withTaskExecutorPreference(loop) {
            #expect(loop.inEventLoop)
            _ = try await center.perform("valve", .setValue(true))
        }
        // Asked from anywhere else (the socket, HomeKit), it runs on the cooperative pool.
        _ = try await center.perform("valve", .setValue(false))
        #expect(ranOnLoop.value == [!mayBlock, false])
    }

    @Test func failingPerformReportsTheErrorAndStillReloads() async throws {
        let fan = CountingToggle()
        fan.probe.update { $0.performFailure = "relay did not respond" }
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        let rendersBefore = fan.probe.value.renders
        await #expect(throws: ControlError(.performFailed, kind: fan.kind, placement: "fan", detail: "relay did not respond")) {
            try await center.perform("fan", .toggle)
        }
        #expect(fan.probe.value.renders == rendersBefore + 1)
        #expect(try await center.presentation(of: "fan").status == nil)
    }

    @Test func unknownKindAndDuplicatePlacementAreRefused() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        await #expect(throws: ControlError(.unknownKind, kind: "test.heater", detail: "registered kinds: test.fan")) {
            try await center.place(kind: "test.heater", in: .controlCenter)
        }
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        await #expect(throws: ControlError(.duplicatePlacement, placement: "fan", detail: "choose another identifier or remove it first")) {
            try await center.place(kind: fan.kind, in: .lockScreen, id: "fan")
        }
    }

    @Test func removedControlIsAnnounced() async throws {
        let fan = CountingToggle()
        let center = ControlCenter()
        try await center.register([fan.definition])
        try await center.place(kind: fan.kind, in: .controlCenter, id: "fan")
        var changes = ChangeRecorder(center)
        try await center.remove("fan")
        #expect(await changes.next() == .removed(id: "fan"))
        #expect(await center.placements.isEmpty)
        #expect(try await center.currentControls().isEmpty)
    }
}

extension ControlCenter {
    /// Whether the center's own work runs on its loop's thread.
    fileprivate func runsOnItsLoop() -> Bool { loop.inEventLoop }
}
