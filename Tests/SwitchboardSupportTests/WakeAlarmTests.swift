import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The single timer behind the services' loops (auto-off, covers, schedules, device health): one
/// sleep at a time, to the soonest instant asked for, ringing the loop's doorbell.
@Suite(.timeLimit(.minutes(1)))
struct WakeAlarmTests {
    private func at(_ seconds: Int64) -> OffsetInstant { OffsetInstant(offset: .seconds(seconds)) }

    @Test func aLaterInstantWhileASleepEndsSoonerStartsNoSecondSleep() {
        let clock = ManualClock()
        var alarm = WakeAlarm(clock: AnyClock(clock), ringing: Doorbell())
        #expect(alarm.arm(at: at(10)) != nil)
        #expect(alarm.arm(at: at(12)) == nil, "the sleep until 10 s wakes the loop before 12 s")
        #expect(alarm.arm(at: at(10)) == nil)
        #expect(alarm.arm(at: at(5)) != nil, "an earlier instant needs its own sleep")
        #expect(alarm.armed == at(5))
    }

    @Test func onceItsSleepHasEndedTheNextInstantIsArmedAgain() {
        let clock = ManualClock()
        var alarm = WakeAlarm(clock: AnyClock(clock), ringing: Doorbell())
        #expect(alarm.arm(at: at(10)) != nil)
        clock.advance(by: .seconds(10))
        #expect(alarm.arm(at: at(15)) != nil, "the sleep until 10 s has ended: nothing would wake the loop at 15 s")
    }

    @Test func theSleepRingsTheBellAtItsInstantAndNotBefore() async {
        let clock = ManualClock()
        let bell = Doorbell()
        var alarm = WakeAlarm(clock: AnyClock(clock), ringing: bell)
        let rings = Probe(0)
        let listener = Task { for await _ in bell { rings.update { $0 += 1 } } }
        guard let sleep = alarm.arm(at: at(3)) else {
            Issue.record("the first instant armed no sleep")
            return
        }
        let sleeper = Task { await sleep() }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        try? await Task.sleep(for: .milliseconds(50))
        #expect(rings.value == 0, "two seconds in, the alarm set for three has not rung")
        clock.advance(by: .seconds(1))
        #expect(await rings.wait { $0 == 1 } == 1)
        await sleeper.value
        listener.cancel()
        bell.finish()
        await listener.value
    }

    @Test func aCancelledSleepDoesNotRing() async {
        let clock = ManualClock()
        let bell = Doorbell()
        var alarm = WakeAlarm(clock: AnyClock(clock), ringing: bell)
        guard let sleep = alarm.arm(at: at(3)) else {
            Issue.record("the first instant armed no sleep")
            return
        }
        let sleeper = Task { await sleep() }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await sleeper.value
        clock.advance(by: .seconds(5))
        bell.finish()
        #expect(await bell.wait() == false, "the cancelled sleep never rang")
    }
}
