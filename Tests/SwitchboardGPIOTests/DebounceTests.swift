import SwitchboardGPIO
import SwitchboardTesting
import Testing

@Suite struct DebouncerTests {
    func edge(_ value: Bool, _ ms: Int) -> GPIOEdgeEvent { GPIOEdgeEvent(offset: 0, value: value, timestamp: .milliseconds(ms)) }

    @Test func cleanEdgeIsAcceptedAfterTheWindowWithItsOwnTimestamp() {
        var debouncer = Debouncer(initialValue: false)
        #expect(debouncer.window == .milliseconds(20))
        #expect(debouncer.edge(edge(true, 100)) == .startWindow)
        #expect(debouncer.windowElapsed() == edge(true, 100))
        #expect(debouncer.value == true)
    }

    @Test func chatterSettlingOnTheNewLevelIsOneEdgeStampedAtTheFirst() {
        var debouncer = Debouncer(initialValue: false)
        #expect(debouncer.edge(edge(true, 100)) == .startWindow)
        #expect(debouncer.edge(edge(false, 102)) == .none)
        #expect(debouncer.edge(edge(true, 105)) == .none)
        #expect(debouncer.windowElapsed() == edge(true, 100))
    }

    @Test func chatterSettlingBackIsNoEdge() {
        var debouncer = Debouncer(initialValue: false)
        #expect(debouncer.edge(edge(true, 100)) == .startWindow)
        #expect(debouncer.edge(edge(false, 103)) == .none)
        #expect(debouncer.windowElapsed() == nil)
        #expect(debouncer.value == false)
    }

    /// A press whose window timer is handled late, after the release arrived: the window ended
    /// (by the edges' timestamps) before the release, so the press is accepted first.
    @Test func anEdgeAfterTheWindowsEndFindsItPassed() {
        var debouncer = Debouncer(initialValue: false)
        #expect(debouncer.edge(edge(true, 100)) == .startWindow)
        #expect(!debouncer.windowHasPassed(before: edge(false, 119)))
        #expect(debouncer.windowHasPassed(before: edge(false, 120)))
        #expect(debouncer.windowElapsed() == edge(true, 100))
        #expect(debouncer.edge(edge(false, 180)) == .startWindow)
        #expect(debouncer.windowElapsed() == edge(false, 180))
        #expect(!debouncer.windowHasPassed(before: edge(true, 500)), "no window open")
    }

    @Test func edgeToTheCurrentLevelStartsNothing() {
        var debouncer = Debouncer(initialValue: true)
        #expect(debouncer.edge(edge(true, 1)) == .none)
        #expect(debouncer.windowElapsed() == nil)
    }
}

@Suite(.timeLimit(.minutes(1))) struct DebouncedInputTests {
    @Test func simulatedButtonPressAndReleaseAreStampedAtTheirFirstEdge() async throws {
        let clock = ManualClock()
        let chip = SimulatedGPIOChip(lineCount: 4, clock: clock)
        let button = try chip.request(.offset(2), GPIOLineConfiguration(.input(edges: .both), activeLow: true, bias: .pullUp))
        let input = try DebouncedInput(button, window: .milliseconds(20), clock: clock)
        let accepted = Probe<[GPIOEdgeEvent]>([])
        try await withRunningService({ await input.run { edge in accepted.update { $0.append(edge) } } }) {
            // Press at 100 ms, chatter at 101 and 103 ms, settling pressed.
            clock.advance(by: .milliseconds(100))
            try chip.drive(.offset(2), high: false)
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .milliseconds(120))])
            clock.advance(by: .milliseconds(1))
            try chip.drive(.offset(2), high: true)
            clock.advance(by: .milliseconds(2))
            try chip.drive(.offset(2), high: false)
            clock.advance(to: ManualClock.Instant(offset: .milliseconds(120)))
            #expect(await eventually(within: .seconds(10)) { !accepted.value.isEmpty }, "the press was not accepted")
            #expect(accepted.value == [GPIOEdgeEvent(offset: 2, value: true, timestamp: .milliseconds(100))])

            // Released at 800 ms: 700 ms after the press, whenever the handler runs. The chatter's
            // edges may be handled only now (after the press was accepted by its window's timer),
            // and a window is timed from when its edge is handled: time goes on, 25 ms at a time,
            // until the release is accepted (one step waiting for one sleeper once hung here, the
            // sleeper it found being a chatter edge's window and the release's timed from later).
            clock.advance(to: ManualClock.Instant(offset: .milliseconds(800)))
            try chip.drive(.offset(2), high: true)
            let released = await eventually(within: .seconds(10)) {
                clock.advance(by: .milliseconds(25))
                return accepted.value.count >= 2
            }
            #expect(released, "the release was not accepted")
            #expect(accepted.value == [
                GPIOEdgeEvent(offset: 2, value: true, timestamp: .milliseconds(100)),
                GPIOEdgeEvent(offset: 2, value: false, timestamp: .milliseconds(800)),
            ])
        }
    }
}
