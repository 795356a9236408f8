import ControlKit
import HomeControlsExample
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The team's example bundle run through a control center on an in-memory home: exact
/// presentations per space and size, the gallery, reloads after perform, device calls and their
/// failures, and a provider failure then recovery.
///
/// The example's controls use `DeviceCenter.shared`, the process's: each test connects a fresh
/// home to it, and the suite is serialized so that no two tests share one.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct HomeControlsExampleTests {
    let clock = ManualClock()
    let center: ControlCenter
    let home = InMemoryDevices([
        DeviceDescription(id: "porch", name: "Porch Light", kind: .relay),
        DeviceDescription(id: "kitchen", name: "Kitchen Light", kind: .mqtt),
        DeviceDescription(id: "hall", name: "Hall Light", kind: .relay),
        DeviceDescription(id: "garage", name: "Garage Door", kind: .pulse),
        DeviceDescription(id: "garage-closed", name: "Garage Closed", kind: .input),
        DeviceDescription(id: "sprinkler", name: "Sprinkler", kind: .relay),
    ], values: ["kitchen": false])

    init() async throws {
        home.connect(to: .shared)
        center = ControlCenter(clock: clock, statusDuration: .seconds(3), retry: Backoff(initial: .seconds(1), maximum: .seconds(8)))
        try await center.register(HomeControlsBundle.self)
    }

    @Test func galleryListsBundleInOrderWithPreviews() async throws {
        let gallery = await center.gallery()
        #expect(gallery.map(\.kind) == [LightToggle.kind, GarageDoorButton.kind, SprinklerToggle.kind])
        #expect(gallery.map(\.displayName) == ["Light", "Garage Door", "Sprinkler"])
        #expect(gallery.map(\.description) == ["Turn a light on or off.", "Open or close the garage door.", "Water the garden."])

        let light = gallery[0]
        #expect(light.isConfigurable)
        #expect(light.parameters == [ControlParameter(name: "light", title: "Light", type: "Light", options: [
            ParameterOption(id: "porch", title: "Porch Light"),
            ParameterOption(id: "kitchen", title: "Kitchen Light"),
            ParameterOption(id: "hall", title: "Hall Light"),
            ParameterOption(id: "sprinkler", title: "Sprinkler"),
        ])])
        #expect(light.presentation.needsConfiguration)

        #expect(gallery[1].presentation == ControlPresentation(
            id: nil, kind: GarageDoorButton.kind, template: .button, space: .controlCenter, size: .medium,
            displayName: "Garage Door", title: "Garage Door", value: nil, valueText: nil,
            symbol: "door.garage.closed", tint: nil, status: nil, actionHint: "Hold for Garage Door"
        ))
        #expect(gallery[2].presentation == ControlPresentation(
            id: nil, kind: SprinklerToggle.kind, template: .toggle, space: .controlCenter, size: .medium,
            displayName: "Sprinkler", title: "Sprinkler", value: false, valueText: "Idle",
            symbol: "sprinkler", tint: nil, status: nil, actionHint: "Hold to Water"
        ))
    }

    @Test func lightPresentationsPerSpaceAndSize() async throws {
        home.set("porch", to: true)
        let medium = try await center.place(kind: LightToggle.kind, in: .controlCenter, size: .medium, configuration: ["light": "porch"], id: "porch-medium")
        #expect(medium == ControlPresentation(
            id: "porch-medium", kind: LightToggle.kind, template: .toggle, space: .controlCenter, size: .medium,
            displayName: "Light", title: "Porch Light", value: true, valueText: "On",
            symbol: "lightbulb.fill", tint: .yellow, status: nil, actionHint: "Hold to Turn Off Porch Light"
        ))
        let large = try await center.place(kind: LightToggle.kind, in: .controlCenter, size: .large, configuration: ["light": "kitchen"], id: "kitchen-large")
        #expect(large == ControlPresentation(
            id: "kitchen-large", kind: LightToggle.kind, template: .toggle, space: .controlCenter, size: .large,
            displayName: "Light", title: "Kitchen Light", value: false, valueText: "Off",
            symbol: "lightbulb", tint: nil, status: nil, actionHint: "Hold to Turn On Kitchen Light"
        ))
        let small = try await center.place(kind: LightToggle.kind, in: .controlCenter, size: .small, configuration: ["light": "porch"], id: "porch-small")
        #expect(small.title == nil && small.valueText == nil && small.symbol == "lightbulb.fill" && small.tint == .yellow)
        let lock = try await center.place(kind: LightToggle.kind, in: .lockScreen, configuration: ["light": "porch"], id: "porch-lock")
        #expect(lock.size == nil && lock.title == nil && lock.valueText == nil && lock.symbol == "lightbulb.fill")
        let button = try await center.place(kind: LightToggle.kind, in: .actionButton, configuration: ["light": "hall"], id: "hall-button")
        #expect(button.title == "Hall Light" && button.valueText == "Off" && button.actionHint == "Hold to Turn On Hall Light")
        #expect(await center.placements.map(\.id) == ["porch-medium", "kitchen-large", "porch-small", "porch-lock", "hall-button"])
    }

    @Test func lightPlacedWithoutConfigurationNeedsIt() async throws {
        let placed = try await center.place(kind: LightToggle.kind, in: .controlCenter)
        #expect(placed.id == "Light-1")
        #expect(placed.needsConfiguration)
        #expect(placed.title == "Light")
        await #expect(throws: ControlError(.needsConfiguration, kind: LightToggle.kind, placement: "Light-1", detail: "choose its light first (switchboard configure Light-1 --device …)")) {
            try await center.perform("Light-1", .toggle)
        }
        let configured = try await center.configure("Light-1", configuration: ["light": "hall"])
        #expect(configured.title == "Hall Light")
        #expect(!configured.needsConfiguration)
    }

    @Test func invalidConfigurationIsRefusedWithTheChoices() async throws {
        await #expect(throws: ControlError(.invalidConfiguration, kind: LightToggle.kind, detail: "light: \"attic\" is not one of porch, kitchen, hall, sprinkler")) {
            try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "attic"])
        }
        #expect(await center.placements.isEmpty)
        await #expect(throws: ControlError(.invalidConfiguration, kind: LightToggle.kind, detail: "light: \"garage\" is not one of porch, kitchen, hall, sprinkler")) {
            try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "garage"])
        }
        let error = ControlError(.invalidConfiguration, kind: LightToggle.kind, detail: "light: \"attic\" is not one of porch, kitchen, hall, sprinkler")
        #expect(error.description == "control kind \"com.switchboard.example.Light\": invalid configuration: light: \"attic\" is not one of porch, kitchen, hall, sprinkler")
    }

    @Test func performReloadsOnlyAfterPerformReturns() async throws {
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "porch"], id: "porch")
        var changes = ChangeRecorder(center)
        let outcome = try await center.perform("porch", .toggle)
        #expect(home.value("porch") == true)
        #expect(home.calls.filter { if case .set = $0 { true } else { false } } == [.set("porch", true, kind: LightToggle.kind)])
        #expect(outcome.presentation.value == true)
        #expect(outcome.presentation.actionHint == "Hold to Turn Off Porch Light")
        let change = try #require(await changes.nextPresentation())
        #expect(change == outcome.presentation)
    }

    @Test func configurableControlsKeepTheirOwnDevice() async throws {
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "porch"], id: "a")
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "kitchen"], id: "b")
        _ = try await center.perform("b", .setValue(true))
        #expect(home.value("porch") == false)
        #expect(home.value("kitchen") == true)
        #expect(try await center.presentation(of: "a").value == false)
        #expect(try await center.presentation(of: "b").value == true)
    }

    @Test func sprinklerHintsAndMomentaryStatus() async throws {
        try await withRunningService({ await center.run() }) {
            try await center.place(kind: SprinklerToggle.kind, in: .controlCenter, id: "sprinkler")
            var changes = ChangeRecorder(center)
            let started = try await center.perform("sprinkler", .toggle)
            #expect(started.presentation.valueText == "Watering")
            #expect(started.presentation.status == "Watering for 10 min")
            #expect(started.presentation.actionHint == "Hold to Stop")
            #expect(started.presentation.tint == .teal)
            #expect(home.value("sprinkler") == true)
            _ = await changes.nextPresentation()

            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(3))])
            clock.advance(by: .milliseconds(2999))
            #expect(try await center.presentation(of: "sprinkler").status == "Watering for 10 min")
            clock.advance(by: .milliseconds(1))
            let cleared = try #require(await changes.nextPresentation())
            #expect(cleared.status == nil)
            #expect(cleared.valueText == "Watering")
        }
    }

    @Test func aStreamOfActionsWaitsOnOneTimerForTheLastStatus() async throws {
        try await withRunningService({ await center.run() }) {
            try await center.place(kind: SprinklerToggle.kind, in: .controlCenter, id: "sprinkler")
            for _ in 0..<20 { _ = try await center.perform("sprinkler", .toggle) }
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(3))], "one sleeper for twenty statuses")

            clock.advance(by: .seconds(1))
            for _ in 0..<21 { _ = try await center.perform("sprinkler", .toggle) }
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(3))], "a later status moves the timer, adding no sleeper")

            // At 3 s the sleeper finds the status due at 4 s and waits for that.
            clock.advance(by: .seconds(2))
            await clock.waitForSleeper(until: ManualClock.Instant(offset: .seconds(4)))
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(4))])
            #expect(try await center.presentation(of: "sprinkler").status == "Watering for 10 min", "the last action's status shows 3 s")
            var changes = ChangeRecorder(center)
            clock.advance(by: .seconds(1))
            let cleared = try #require(await changes.nextPresentation())
            #expect(cleared.status == nil)
            #expect(clock.sleeperCount == 0)
        }
    }

    @Test func garageDoorRequiresAuthenticationWhileLocked() async throws {
        try await center.place(kind: GarageDoorButton.kind, in: .actionButton, id: "garage")
        await center.setLocked(true)
        await #expect(throws: ControlError(.authenticationRequired, kind: GarageDoorButton.kind, placement: "garage", detail: "Switchboard is locked; unlock it (switchboard unlock) or use the local CLI")) {
            try await center.perform("garage", .press)
        }
        #expect(home.presses(of: "garage") == 0)

        let authenticated = try await center.perform("garage", .press, authenticated: true)
        #expect(home.presses(of: "garage") == 1)
        #expect(authenticated.dialog == "Garage door moving")

        await center.setLocked(false)
        _ = try await center.perform("garage", .press)
        #expect(home.presses(of: "garage") == 2)
        #expect(home.calls.filter { if case .pulse = $0 { true } else { false } } == [.pulse("garage", kind: GarageDoorButton.kind), .pulse("garage", kind: GarageDoorButton.kind)])
    }

    @Test func wrongRequestsAreRefused() async throws {
        try await center.place(kind: GarageDoorButton.kind, in: .controlCenter, id: "garage")
        try await center.place(kind: SprinklerToggle.kind, in: .controlCenter, id: "sprinkler")
        await #expect(throws: ControlError(.wrongRequest, placement: "garage", detail: "is a button: send PRESS, not a value")) {
            try await center.perform("garage", .toggle)
        }
        await #expect(throws: ControlError(.wrongRequest, placement: "sprinkler", detail: "is a toggle: send ON, OFF or TOGGLE, not PRESS")) {
            try await center.perform("sprinkler", .press)
        }
        await #expect(throws: ControlError(.unknownPlacement, placement: "attic", detail: "placed controls: garage, sprinkler")) {
            try await center.perform("attic", .press)
        }
    }

    @Test func providerErrorKeepsLastGoodThenRecoversWithBackoff() async throws {
        home.set("porch", to: true)
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "porch"], id: "porch")
        try await withRunningService({ await center.run() }) {
            var changes = ChangeRecorder(center)
            home.setUnreachable("the lighting hub is unreachable")
            await center.reload(kind: LightToggle.kind)
            let stale = try #require(await changes.nextPresentation())
            #expect(stale.stale)
            #expect(stale.value == true)
            #expect(stale.valueText == "On")

            // First retry 1 s after the failure; it fails too, so the next is 2 s after that.
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(1))])
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(3))])
            #expect(try await center.presentation(of: "porch").stale)
            home.setUnreachable(nil)
            home.set("porch", to: false)
            clock.advance(by: .milliseconds(1999))
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .milliseconds(1))
            let recovered = try #require(await changes.nextPresentation())
            #expect(!recovered.stale)
            #expect(recovered.value == false)
            #expect(recovered.valueText == "Off")
        }
    }

    @Test func performOnAnUnreachableHubFailsWithTheDevicesMessage() async throws {
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "porch"], id: "porch")
        home.setUnreachable("the lighting hub is unreachable")
        await #expect(throws: ControlError(.performFailed, kind: LightToggle.kind, placement: "porch", detail: "Porch Light (\"porch\") was not switched: the lighting hub is unreachable")) {
            try await center.perform("porch", .setValue(true))
        }
        home.setUnreachable(nil)
        #expect(home.value("porch") == false)
    }

    @Test func lightOfAnotherSystemIsStaleUntilItReports() async throws {
        home.set("kitchen", to: nil)
        let placed = try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "kitchen"], id: "kitchen")
        #expect(placed.stale)
        #expect(placed.value == false)
        home.set("kitchen", to: true)
        await center.reload(kind: LightToggle.kind)
        let reported = try await center.presentation(of: "kitchen")
        #expect(!reported.stale)
        #expect(reported.value == true)
        #expect(reported.valueText == "On")
    }

    @Test func providersReadTheirDevicesForTheirKind() async throws {
        try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "hall"], id: "hall")
        try await center.place(kind: SprinklerToggle.kind, in: .controlCenter, id: "sprinkler")
        #expect(home.calls.contains(.value("hall", kind: LightToggle.kind)))
        #expect(home.calls.contains(.value("sprinkler", kind: SprinklerToggle.kind)))
        #expect(!home.calls.contains { if case .value("garage-closed", _) = $0 { true } else { false } })
    }

    @Test func placedWhileTheHubIsUnreachableIsRetriedUntilItAnswers() async throws {
        home.set("porch", to: true)
        home.setUnreachable("the lighting hub is unreachable")
        let placed = try await center.place(kind: LightToggle.kind, in: .controlCenter, configuration: ["light": "porch"], id: "porch")
        #expect(placed.stale)
        try await withRunningService({ await center.run() }) {
            var changes = ChangeRecorder(center)
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(1))])
            home.setUnreachable(nil)
            clock.advance(by: .seconds(1))
            let recovered = try #require(await changes.nextPresentation())
            #expect(!recovered.stale)
            #expect(recovered.value == true)
            #expect(recovered.valueText == "On")
        }
    }
}
