import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// Input devices on the simulated chip with a manual clock: requested as inputs, read from their
/// lines, each debounced change announced once, refused when switched, shown by a toggle, and
/// watched again after a reload.
@Suite(.timeLimit(.minutes(1)))
struct InputDeviceTests {
    /// A garage contact (a reed switch to ground: pulled up, active low), a doorbell, a relay, and
    /// a toggle showing the contact.
    static let configuration = #"""
    {
      "node": "garage-pi",
      "chips": [ { "id": "main", "chip": "header" } ],
      "devices": [
        { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
        { "id": "contact", "name": "Garage Contact", "type": "input", "gpio": { "chip": "main", "line": 6, "bias": "pullUp", "activeLow": true, "debounce": "20ms" } },
        { "id": "doorbell", "name": "Doorbell", "type": "input", "gpio": { "chip": "main", "line": 13, "debounce": "50ms" } }
      ],
      "controls": [
        {
          "kind": "garage-contact", "template": "toggle", "title": "Garage Door", "device": "contact",
          "symbols": { "on": "door.garage.open", "off": "door.garage.closed" }, "valueText": { "on": "Open", "off": "Closed" }
        }
      ],
      "placements": [ { "id": "contact", "control": "garage-contact" } ]
    }
    """#

    static let contact = GPIOLineSelector.offset(6)
    static let doorbell = GPIOLineSelector.offset(13)

    let clock = ManualClock()
    let chip: SimulatedGPIOChip

    init() { chip = SimulatedGPIOChip(lineCount: 54, clock: clock) }

    func load() throws -> SwitchboardConfiguration {
        try ConfigurationLoader.load(data: Data(Self.configuration.utf8))
    }

    func hub(on chip: any GPIOChip) throws -> DeviceHub {
        try DeviceHub(configuration: load(), chips: ["main": chip], persisted: PersistedState(), stateFile: nil, clock: clock)
    }

    func node(handover: LineHandover = .none) async throws -> NodeRuntime {
        try await NodeRuntime(
            configuration: load(), chips: ["main": chip], persisted: PersistedState(), stateFile: nil,
            handover: handover, log: Log(minimum: .error), clock: clock
        )
    }

    /// Moves the clock to `offset`, drives a line there, and lets the debounce window that edge
    /// opens (the only timer running) pass.
    func change(_ line: GPIOLineSelector, high: Bool, at offset: Duration, window: Duration = .milliseconds(20)) async throws {
        clock.advance(to: OffsetInstant(offset: offset))
        try chip.drive(line, high: high)
        await clock.waitForSleepers(1)
        #expect(clock.pendingDeadlines == [OffsetInstant(offset: offset + window)])
        clock.advance(by: window)
    }

    /// The next presentation a center publishes.
    func nextPresentation(_ changes: inout AsyncStream<ControlChange>.AsyncIterator) async -> ControlPresentation? {
        while let change = await changes.next() {
            if case .presentation(let presentation) = change { return presentation }
        }
        return nil
    }

    @Test func inputsAreRequestedWithTheirBiasActiveLowAndDebounceAndReleasedAtShutdown() throws {
        let recording = KernelDebouncingChip(chip)
        let hub = try hub(on: recording)
        #expect(recording.requests == [
            KernelDebouncingChip.Request(line: .offset(17), configuration: GPIOLineConfiguration(.output(initialValue: false))),
            KernelDebouncingChip.Request(line: Self.contact, configuration: GPIOLineConfiguration(
                .input(edges: .both), activeLow: true, bias: .pullUp, debounce: .milliseconds(20)
            )),
            KernelDebouncingChip.Request(line: Self.doorbell, configuration: GPIOLineConfiguration(.input(edges: .both), debounce: .milliseconds(50))),
        ])
        #expect(try chip.consumer(of: Self.contact) == "switchboard")
        #expect(try chip.physicalLevel(Self.contact) == true, "the pull-up bias reached the line")
        #expect(hub.inputWatcher != nil)

        hub.shutdown()
        #expect(try chip.consumer(of: Self.contact) == nil)
        #expect(try chip.consumer(of: Self.doorbell) == nil)
    }

    @Test func anInputsValueIsReadFromItsLine() throws {
        let hub = try hub(on: chip)
        #expect(try hub.value(of: "contact") == false, "pulled up and active low: closed")
        #expect(try hub.value(of: "doorbell") == false)
        try chip.drive(Self.contact, high: false)
        #expect(try hub.value(of: "contact") == true)
        try chip.drive(Self.doorbell, high: true)
        #expect(try hub.value(of: "doorbell") == true)
        try chip.drive(Self.contact, high: true)
        #expect(try hub.value(of: "contact") == false)
        #expect(hub.outputValues().map(\.id) == ["porch"], "inputs are not outputs")
        hub.shutdown()
    }

    @Test func swiftControlsReadAnInputThroughTheNodesDeviceService() async throws {
        let node = try await node()
        let devices = NodeDeviceService(caller: "a test", allowed: nil) { node }
        #expect(try await devices.value(of: "contact", for: nil) == false)
        try chip.drive(Self.contact, high: false)
        #expect(try await devices.value(of: "contact", for: nil) == true)
        node.shutdown()
    }

    @Test func aChangeIsAnnouncedOnceWhenItsDebounceWindowHasPassed() async throws {
        let hub = try hub(on: chip)
        let watcher = try #require(hub.inputWatcher)
        var changes = hub.valueChanges.subscribe().makeAsyncIterator()
        try await withRunningService({ await watcher.run() }) {
            clock.advance(to: OffsetInstant(offset: .seconds(1)))
            try chip.drive(Self.contact, high: false)
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [OffsetInstant(offset: .milliseconds(1020))])
            clock.advance(by: .milliseconds(19))
            #expect(clock.sleeperCount == 1, "the window is still open: nothing is announced yet")
            #expect(try hub.value(of: "contact") == true, "while the line already reads open")
            clock.advance(by: .milliseconds(1))
            #expect(await changes.next() == "contact")

            // The doorbell's change comes next: the contact's was announced once.
            try await change(Self.doorbell, high: true, at: .seconds(2), window: .milliseconds(50))
            #expect(await changes.next() == "doorbell")
        }
        hub.shutdown()
    }

    @Test func chatterThatSettlesBackInsideTheWindowIsNoChange() async throws {
        let hub = try hub(on: chip)
        let watcher = try #require(hub.inputWatcher)
        var changes = hub.valueChanges.subscribe().makeAsyncIterator()
        // The contact bounces open and closed within 15 ms and settles closed. Its edges wait for
        // the watcher, which reads them all at once: they are handled in one window.
        clock.advance(to: OffsetInstant(offset: .seconds(1)))
        for (step, high) in [false, true, false, true].enumerated() {
            clock.advance(to: OffsetInstant(offset: .seconds(1) + .milliseconds(5 * step)))
            try chip.drive(Self.contact, high: high)
        }
        try await withRunningService({ await watcher.run() }) {
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [OffsetInstant(offset: .milliseconds(1035))])
            clock.advance(by: .milliseconds(20))
            try await change(Self.doorbell, high: true, at: .seconds(2), window: .milliseconds(50))
            #expect(await changes.next() == "doorbell", "the chatter announced nothing")
            #expect(try hub.value(of: "contact") == false)
        }
        hub.shutdown()
    }

    @Test func whereTheKernelDebouncesAChangeIsAnnouncedAsItsEdgeComes() async throws {
        let hub = try hub(on: KernelDebouncingChip(chip))
        let watcher = try #require(hub.inputWatcher)
        var changes = hub.valueChanges.subscribe().makeAsyncIterator()
        try await withRunningService({ await watcher.run() }) {
            try chip.drive(Self.contact, high: false)
            #expect(await changes.next() == "contact")
            #expect(clock.sleeperCount == 0, "no window in software")
            try chip.drive(Self.contact, high: true)
            #expect(await changes.next() == "contact")
        }
        hub.shutdown()
    }

    @Test func switchingAnInputIsRefusedByName() async throws {
        let hub = try hub(on: chip)
        let refusal = ControlError(.wrongRequest, detail: "Garage Contact is an input: it can be read, not switched")
        await #expect(throws: refusal) { try await hub.set("contact", to: true) }
        await #expect(throws: refusal) { try await hub.pulse("contact") }
        #expect(refusal.description == "control: Garage Contact is an input: it can be read, not switched")
        #expect(try hub.value(of: "contact") == false)
        #expect(try chip.physicalLevel(Self.contact) == true)
        hub.shutdown()
    }

    @Test func aToggleBoundToAnInputShowsItsStateAndReloadsWhenTheLineChanges() async throws {
        let node = try await node()
        let closed = try await node.center.presentation(of: "contact")
        #expect(closed.value == false && closed.valueText == "Closed" && closed.symbol == "door.garage.closed")
        var changes = node.center.changes().makeAsyncIterator()
        try await withRunningService({ await node.runServices() }) {
            try await change(Self.contact, high: false, at: .seconds(1))
            let open = await nextPresentation(&changes)
            #expect(open?.id == "contact")
            #expect(open?.value == true && open?.valueText == "Open" && open?.symbol == "door.garage.open")
            #expect(open?.title == "Garage Door")
            node.stopServices()
        }
        node.shutdown()
    }

    @Test func aToggleBoundToAnInputRefusesToPerform() async throws {
        let node = try await node()
        let refusal = ControlError(.performFailed, kind: "garage-contact", placement: "contact", detail: "Garage Contact is an input: it can be read, not switched")
        await #expect(throws: refusal) { try await node.center.perform("contact", .toggle, authenticated: true) }
        #expect(refusal.description == #"control "contact" failed: Garage Contact is an input: it can be read, not switched"#)
        #expect(try await node.center.presentation(of: "contact").value == false)
        #expect(try chip.physicalLevel(Self.contact) == true, "nothing drives the contact")
        node.shutdown()
    }

    @Test func aReloadRequestsTheInputsAgainAndKeepsWatchingThem() async throws {
        let configuration = try load()
        let first = try await node()
        let handover = await withRunningService({ await first.runServices() }) {
            // What SwitchboardDaemon.reload does on SIGHUP: stop the services, hand the lines
            // over, start the new configuration.
            first.stopServices()
            return first.shutdown(handingOverTo: configuration)
        }
        #expect(handover.count == 1, "the porch relay stays requested")
        #expect(try chip.consumer(of: Self.contact) == nil, "the input is released for the next configuration")

        // The door opens while the lines change hands: the next configuration reads it open.
        clock.advance(to: OffsetInstant(offset: .seconds(1)))
        try chip.drive(Self.contact, high: false)
        let second = try await node(handover: handover)
        handover.releaseRest()
        #expect(try chip.consumer(of: Self.contact) == "switchboard")
        #expect(try await second.center.presentation(of: "contact").valueText == "Open")

        var changes = second.center.changes().makeAsyncIterator()
        try await withRunningService({ await second.runServices() }) {
            try await change(Self.contact, high: true, at: .seconds(2))
            let closed = await nextPresentation(&changes)
            #expect(closed?.id == "contact" && closed?.value == false && closed?.valueText == "Closed")
            second.stopServices()
        }
        second.shutdown()
        #expect(try chip.consumer(of: Self.contact) == nil)
    }
}
