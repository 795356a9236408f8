import SwitchboardSupport
import SwitchboardTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct ClockTests {
    @Test func manualClockWakesSleepersOnlyWhenTheirDeadlineComes() async throws {
        let clock = ManualClock()
        let woke = Probe<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, delay) in [300, 100, 200].enumerated() {
                group.addTask {
                    try await clock.sleep(until: clock.now.advanced(by: .milliseconds(delay)))
                    woke.update { $0.append(index) }
                }
            }
            await clock.waitForSleepers(3)
            clock.advance(by: .milliseconds(99))
            #expect(clock.sleeperCount == 3)
            clock.advance(by: .milliseconds(101))
            #expect(await yielding(until: { woke.value.count >= 2 }))
            #expect(Set(woke.value) == [1, 2])
            clock.advance(by: .milliseconds(100))
            try await group.waitForAll()
            #expect(woke.value.count == 3)
        }
    }

    @Test func cancelledSleeperThrowsAndLeavesTheClock() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5))) }
        await clock.waitForSleepers(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func anyClockMeasuresFromItsOriginAndSleepsOnTheBaseClock() async throws {
        let manual = ManualClock()
        manual.advance(by: .seconds(10))
        let clock = AnyClock(manual)
        #expect(clock.now.offset == .zero)
        manual.advance(by: .seconds(2))
        #expect(clock.now.offset == .seconds(2))
        async let slept: Void = clock.sleep(until: AnyClock.Instant(offset: .seconds(3)))
        await manual.waitForSleepers(1)
        manual.advance(by: .seconds(1))
        try await slept
        #expect(clock.now.offset == .seconds(3))
    }
}
