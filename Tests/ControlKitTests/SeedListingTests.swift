import ControlKit
@testable import SeedSamples
import SwitchboardTesting
import Testing

/// Apple's own listings, compiled unchanged in Swift 5 mode, behave as the session describes.
@Suite(.serialized, .timeLimit(.minutes(1)))
@MainActor
struct SeedListingTests {
    init() {
        TimerManager.shared.isRunning = false
        TimerManager.shared.runningTimers = []
        TimerManager.shared.fetchError = nil
    }

    private func presentation<C: ControlWidget>(
        _ control: C.Type, space: ControlSpace = .controlCenter, size: ControlSize? = .medium,
        configuration: [String: String] = [:]
    ) async throws -> ControlPresentation {
        let center = ControlCenter()
        try await center.register([ControlDefinition(control)])
        let kind = ControlDefinition(control).kind
        return try await center.place(kind: kind, in: space, size: size, configuration: configuration, id: "timer")
    }

    @Test func defaultToggleShowsOnOffAndTurnOnHintWithTitle() async throws {
        let off = try await presentation(Listing0329.TimerToggle.self)
        #expect(off.title == "Work Timer")
        #expect(off.value == false)
        #expect(off.valueText == "Off")
        #expect(off.symbol == "hourglass.bottomhalf.filled")
        #expect(off.tint == nil)
        #expect(off.actionHint == "Hold to Turn On Work Timer")

        TimerManager.shared.isRunning = true
        let on = try await presentation(Listing0329.TimerToggle.self)
        #expect(on.valueText == "On")
        #expect(on.tint == .blue)
        #expect(on.actionHint == "Hold to Turn Off Work Timer")
    }

    @Test func symbolFollowsState() async throws {
        #expect(try await presentation(Listing0441.TimerToggle.self).symbol == "hourglass.bottomhalf.filled")
        TimerManager.shared.isRunning = true
        #expect(try await presentation(Listing0441.TimerToggle.self).symbol == "hourglass")
    }

    @Test func customValueTextFormsHoldForHintsAndTintAppliesOnlyWhenOn() async throws {
        let stopped = try await presentation(Listing0521.TimerToggle.self)
        #expect(stopped.valueText == "Stopped")
        #expect(stopped.actionHint == "Hold for Running")
        #expect(stopped.tint == nil)

        TimerManager.shared.isRunning = true
        let running = try await presentation(Listing0521.TimerToggle.self)
        #expect(running.valueText == "Running")
        #expect(running.actionHint == "Hold for Stopped")
        #expect(running.tint == .purple)
    }

    @Test func customActionHintIsTheVerbOfTheTargetState() async throws {
        let stopped = try await presentation(Listing1542.TimerToggle.self, configuration: ["timer": "work"])
        #expect(stopped.title == "Work")
        #expect(stopped.actionHint == "Hold to Start")

        TimerManager.shared.runningTimers = ["work"]
        let running = try await presentation(Listing1542.TimerToggle.self, configuration: ["timer": "work"])
        #expect(running.actionHint == "Hold to Stop")
        #expect(running.valueText == "Running")
    }

    @Test func valueTextAndTitleHiddenOnLockScreenAndSmallTile() async throws {
        for (space, size) in [(ControlSpace.lockScreen, ControlSize?.none), (.controlCenter, .small)] {
            let shown = try await presentation(Listing0521.TimerToggle.self, space: space, size: size)
            #expect(shown.title == nil)
            #expect(shown.valueText == nil)
            #expect(shown.symbol == "hourglass.bottomhalf.filled")
            #expect(shown.actionHint == "Hold for Running")
        }
        for size in [ControlSize.medium, .large] {
            let shown = try await presentation(Listing0521.TimerToggle.self, size: size)
            #expect(shown.title == "Work Timer")
            #expect(shown.valueText == "Stopped")
        }
    }

    @Test func displayNameDefaultsToBundleNameAndModifiersOverride() async throws {
        let center = ControlCenter()
        try await center.register(Listing0313.ProductivityExtensionBundle.self)
        let gallery = await center.gallery()
        #expect(gallery.map(\.kind) == ["com.apple.Productivity.TimerToggle"])
        #expect(gallery.map(\.displayName) == ["Productivity"])

        let named = ControlCenter()
        try await named.register([ControlDefinition(Listing1656.TimerToggle.self)])
        let item = try #require(await named.gallery().first)
        #expect(item.displayName == "Productivity Timer")
        #expect(item.description == "Start and stop a productivity timer.")
        #expect(item.parameters.map(\.name) == ["timer"])
        #expect(item.parameters.first?.options.map(\.title) == ["Work", "Violin Practice"])
    }

    @Test func articleBundleListsControlsInBundleOrderWithPreviewValues() async throws {
        TimerManager.shared.isRunning = true // the preview must not read it
        let center = ControlCenter()
        try await center.register(Article.MyControlsAndWidgetsBundle.self)
        let gallery = await center.gallery()
        #expect(gallery.map(\.kind) == ["com.example.myApp.performActionButton", "com.example.MyApp.TimerToggle"])
        #expect(gallery[0].displayName == "Perform Action")
        #expect(gallery[0].presentation.title == "Perform Action")
        #expect(gallery[0].presentation.symbol == "checkmark.circle")
        #expect(gallery[0].presentation.actionHint == "Hold for Perform Action")
        #expect(gallery[1].presentation.value == false)
        #expect(gallery[1].presentation.valueText == "Stopped")
        #expect(gallery[1].presentation.tint == nil)
    }

    @Test func openIntentButtonHintsOpen() async throws {
        let button = try await presentation(Article.LaunchAppButton.self)
        #expect(button.template == .button)
        #expect(button.actionHint == "Hold to Open Productivity")
    }

    @Test func setValueIntentReceivesNewStateAndControlReloadsAfterPerform() async throws {
        let center = ControlCenter()
        try await center.register([ControlDefinition(Listing1100.TimerToggle.self)])
        try await center.place(kind: "com.apple.Productivity.TimerToggle", in: .controlCenter, id: "timer")
        let outcome = try await center.perform("timer", .toggle)
        #expect(TimerManager.shared.isRunning)
        #expect(outcome.presentation.value == true)
        #expect(outcome.presentation.valueText == "Running")
        let off = try await center.perform("timer", .setValue(false))
        #expect(!TimerManager.shared.isRunning)
        #expect(off.presentation.valueText == "Stopped")
    }

    @Test func intentConstructedWithItsParameterActsOnThatEntity() async throws {
        let center = ControlCenter()
        try await center.register([ControlDefinition(Listing1340.TimerToggle.self)])
        let placed = try await center.place(kind: "com.apple.Productivity.TimerToggle", in: .controlCenter, configuration: ["timer": "violin"], id: "violin")
        #expect(placed.title == "Violin Practice")
        let outcome = try await center.perform("violin", .setValue(true))
        #expect(TimerManager.shared.runningTimers == ["violin"])
        #expect(outcome.presentation.value == true)
    }

    @Test func promptsForConfigurationRefusesUntilConfigured() async throws {
        let center = ControlCenter()
        try await center.register([ControlDefinition(Listing1426.SomeControl.self)])
        let placed = try await center.place(kind: "com.apple.Productivity.SomeControl", in: .controlCenter, id: "some")
        #expect(placed.needsConfiguration)
        #expect(placed.actionHint == nil)
        await #expect(throws: ControlError.self) { try await center.perform("some", .toggle) }
        let configured = try await center.configure("some", configuration: ["timer": "work"])
        #expect(!configured.needsConfiguration)
        #expect(configured.title == "Work")
    }

    @Test func throwingProviderKeepsPreviewMarkedStale() async throws {
        TimerManager.shared.fetchError = HomeFailure()
        let stale = try await presentation(Listing1100.TimerToggle.self)
        #expect(stale.stale)
        #expect(stale.valueText == "Stopped")
    }

    @Test func reloadControlsOfKindRequestedFromTheAppReachesPlacedControls() async throws {
        let center = ControlCenter()
        try await center.register([ControlDefinition(Listing1100.TimerToggle.self)])
        try await center.place(kind: "com.apple.Productivity.TimerToggle", in: .controlCenter, id: "timer")
        var changes = ChangeRecorder(center)
        try await withRunningService({ await center.run() }) {
            TimerManager.shared.isRunning = true
            center.reloadControls(ofKind: "com.apple.Productivity.TimerToggle")
            let next = try #require(await changes.nextPresentation())
            #expect(next.valueText == "Running")
        }
    }
}

struct HomeFailure: Error {}
