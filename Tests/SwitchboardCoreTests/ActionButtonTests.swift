import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// The sample's Action button on the simulated chip with a manual clock: exact announcements and
/// outputs for every rule.
@Suite(.timeLimit(.minutes(1)))
struct ActionButtonTests {
    let clock = ManualClock()
    let chip: SimulatedGPIOChip
    let button = GPIOLineSelector.offset(5)

    init() { chip = SimulatedGPIOChip(lineCount: 54, clock: clock) }

    /// The sample with the button bound to `placement`.
    func runtime(boundTo placement: String = "action", extraPlacements: String = "", announce: [ActionButtonSettings.Announcer] = [.log]) async throws -> NodeRuntime {
        let text = DaemonEndToEndTests.sample
            .replacingOccurrences(of: #""id": "button", "placement": "action""#, with: #""id": "button", "placement": "\#(placement)""#)
            .replacingOccurrences(of: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }"#,
                                  with: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }\#(extraPlacements)"#)
        var configuration = try ConfigurationLoader.load(data: Data(text.utf8))
        configuration.mqtt = nil  // no broker here
        // Nor the Zigbee light's state: its placement would stay stale, retried on the clock
        // these tests count timers on.
        configuration.placements.removeAll { $0.id == "kitchen" }
        configuration.actionButtons[0].announce = announce
        return try await NodeRuntime(configuration: configuration, chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log(minimum: .error), clock: clock)
    }

    /// Runs the node's services with the button bound to `placement`, handing `body` the node and
    /// the button's announcements; stops the services when `body` returns.
    func withButton(
        boundTo placement: String = "action", extraPlacements: String = "", locked: Bool = false,
        announce: [ActionButtonSettings.Announcer] = [.log],
        _ body: (NodeRuntime, inout AsyncStream<ActionButtonAnnouncement>.AsyncIterator) async throws -> Void
    ) async throws {
        let node = try await runtime(boundTo: placement, extraPlacements: extraPlacements, announce: announce)
        var heard = node.actionButtons["button"]!.announcements.subscribe().makeAsyncIterator()
        await node.center.setLocked(locked)
        try await withRunningService({ await node.runServices() }) {
            try await body(node, &heard)
            node.stopServices()
        }
    }

    /// Drives the button (active low) and lets its debounce window pass.
    func set(pressed: Bool, at offset: Duration) async throws {
        clock.advance(to: OffsetInstant(offset: offset))
        try chip.drive(button, high: !pressed)
    }

    /// Waits until the debounce window of the last edge is set (`sleepers` in all, counting other
    /// timers then running), and lets it pass.
    func settle(sleepers: Int = 1) async {
        await clock.waitForSleepers(sleepers)
        clock.advance(by: .milliseconds(20))
    }

    @Test func shortPressAnnouncesTheHintThenCancels() async throws {
        try await withButton { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .hint, text: "Hold to Turn On Porch Light", control: "action"))
            try await set(pressed: false, at: .milliseconds(1699))
            await clock.waitForSleepers(2)
            clock.advance(by: .milliseconds(20))
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .cancelled, text: "Cancelled", control: "action"))
            #expect(try node.hub.value(of: "porch") == false)
        }
    }

    @Test func releaseExactlyAtTheHoldTimePerformsAndAnnouncesTheNewValue() async throws {
        try await withButton { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next()?.text == "Hold to Turn On Porch Light")
            // Released at 1.700 s: held exactly 700 ms by the edges' timestamps.
            try await set(pressed: false, at: .milliseconds(1700))
            await clock.waitForSleepers(2)
            clock.advance(by: .milliseconds(20))
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .performed, text: "On", control: "action"))
            #expect(try node.hub.value(of: "porch") == true)
        }
    }

    @Test func holdingLongPerformsOnceAtTheThreshold() async throws {
        try await withButton { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next()?.phase == .hint)
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [OffsetInstant(offset: .milliseconds(1720))])
            clock.advance(to: OffsetInstant(offset: .milliseconds(1720)))
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .performed, text: "On", control: "action"))
            // The performed status's 3 s expiry sleeps too.
            try await set(pressed: false, at: .seconds(4))
            await settle(sleepers: 2)
            // Pressed again: the porch is on now, so the hint is to turn it off; holding longer did not toggle twice.
            try await set(pressed: true, at: .seconds(5))
            await settle()
            #expect(await heard.next()?.text == "Hold to Turn Off Porch Light")
            #expect(try node.hub.value(of: "porch") == true)
        }
    }

    /// The sample's fan ("Running"/"Stopped") switches itself off after ten minutes: holding the button starts it and
    /// says so first, then the countdown, never the countdown alone.
    @Test func aToggleWithAnAutoOffSaysItsNewStateThenTheCountdown() async throws {
        try await withButton(boundTo: "fan") { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            let hint = await heard.next()
            #expect(hint == ActionButtonAnnouncement(phase: .hint, text: "Hold to Start", control: "fan"), "\(String(describing: hint))")
            await clock.waitForSleepers(1)
            clock.advance(to: OffsetInstant(offset: .milliseconds(1720)))
            let performed = await heard.next()
            #expect(performed == ActionButtonAnnouncement(phase: .performed, text: "Running, Off in 10:00", control: "fan"), "\(String(describing: performed))")
            #expect(try node.hub.value(of: "fan") == true)
        }
    }

    @Test func chatterInsideTheDebounceWindowIsNotAPress() async throws {
        try await withButton { node, heard in
            try await set(pressed: true, at: .seconds(1))
            try await set(pressed: false, at: .milliseconds(1005))
            await settle()
            try await set(pressed: true, at: .seconds(2))
            await settle()
            let first = await heard.next()
            #expect(first?.phase == .hint)
            #expect(clock.now.offset == .milliseconds(2020), "the first announcement is the real press's")
        }
    }

    @Test func lockedButtonWithAnAuthenticatedControlSaysUnlockAndDoesNothing() async throws {
        try await withButton(boundTo: "garage", locked: true) { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .refused, text: "Unlock Switchboard to use Garage Door", control: "garage"))
            try await set(pressed: false, at: .seconds(3))
            await settle()
            #expect(try chip.physicalLevel(.offset(22)) == true, "the active-low opener was never pulsed")
        }
    }

    @Test func buttonControlAnnouncesItsStatusAndPressesDuringTheActionAreIgnored() async throws {
        try await withButton(boundTo: "garage") { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .hint, text: "Hold for Garage Door", control: "garage"))
            // Held past the threshold: the opener pulses for 500 ms on the clock, in flight until 2.220 s.
            clock.advance(to: OffsetInstant(offset: .milliseconds(1720)))
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [OffsetInstant(offset: .milliseconds(2220))])
            #expect(try chip.physicalLevel(.offset(22)) == false, "active low: pulsing pulls the line low")
            // Released, pressed and released again while it runs: all ignored.
            for (pressed, at) in [(false, 1750), (true, 1800), (false, 1900)] {
                try await set(pressed: pressed, at: .milliseconds(at))
                await clock.waitForSleepers(2)
                clock.advance(by: .milliseconds(20))
            }
            clock.advance(to: OffsetInstant(offset: .milliseconds(2220)))
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .performed, text: "Door moving", control: "garage"))
            #expect(try chip.physicalLevel(.offset(22)) == true)
        }
    }

    @Test func unconfiguredControlSaysItNeedsConfiguring() async throws {
        try await withButton(boundTo: "hall", extraPlacements: #", { "id": "hall", "control": "light", "space": "actionButton" }"#) { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next() == ActionButtonAnnouncement(phase: .refused, text: "Light needs configuring", control: "hall"))
        }
    }

    @Test func throwingPerformAnnouncesTheFailure() async throws {
        try await withButton { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next()?.phase == .hint)
            // The relay's line is taken away under the control: performing throws.
            node.hub.shutdown()
            clock.advance(to: OffsetInstant(offset: .milliseconds(1720)))
            let failed = await heard.next()
            #expect(failed == ActionButtonAnnouncement(phase: .failed, text: "Porch Light failed", control: "action", reason: #"control "action" failed: gpiochip0 line 17 was already released"#))
        }
    }

    @Test func ledBlinksOnceForTheHintOnTheClock() async throws {
        try await withButton(announce: [.log, .led("status-led")]) { node, heard in
            try await set(pressed: true, at: .seconds(1))
            await settle()
            #expect(await heard.next()?.phase == .hint)
            // The status LED (line 23) lights for 100 ms, then goes dark again.
            await clock.waitForSleepers(2)
            #expect(try chip.physicalLevel(.offset(23)) == true)
            #expect(clock.pendingDeadlines == [OffsetInstant(offset: .milliseconds(1120)), OffsetInstant(offset: .milliseconds(1720))])
            clock.advance(to: OffsetInstant(offset: .milliseconds(1120)))
            await clock.waitForSleepers(2)
            #expect(try chip.physicalLevel(.offset(23)) == false)
        }
    }
}
