import SwitchboardCore
import Testing

@Suite struct HoldToPerformTests {
    var machine = HoldToPerform(holdTime: .milliseconds(700), settleWindow: .milliseconds(20))

    @Test mutating func pressAnnouncesTheHintAndSchedulesTheCheckAfterHoldAndSettle() {
        #expect(machine.press(at: .seconds(10)) == [.announceHint, .scheduleCheck(at: .milliseconds(10_720))])
        #expect(machine.state == .pressed(since: .seconds(10)))
    }

    @Test mutating func releaseBeforeTheHoldTimeCancels() {
        _ = machine.press(at: .seconds(10))
        #expect(machine.release(at: .milliseconds(10_699)) == [.announceCancelled])
        #expect(machine.state == .idle)
        #expect(machine.check(at: .milliseconds(10_720)) == [])
    }

    @Test mutating func releaseExactlyAtTheHoldTimePerforms() {
        _ = machine.press(at: .seconds(10))
        #expect(machine.release(at: .milliseconds(10_700)) == [.perform])
        #expect(machine.state == .performing(released: true))
        machine.performFinished()
        #expect(machine.state == .idle)
    }

    @Test mutating func holdingPerformsOnceAtTheCheckAndNeverRepeats() {
        _ = machine.press(at: .seconds(10))
        #expect(machine.check(at: .milliseconds(10_720)) == [.perform])
        #expect(machine.check(at: .milliseconds(11_000)) == [])
        machine.performFinished()
        #expect(machine.state == .waitingForRelease)
        #expect(machine.release(at: .seconds(15)) == [])
        #expect(machine.state == .idle)
    }

    @Test mutating func pressesWhileTheActionRunsAreIgnored() {
        _ = machine.press(at: .seconds(10))
        _ = machine.release(at: .seconds(11))
        #expect(machine.press(at: .milliseconds(11_100)) == [])
        #expect(machine.release(at: .milliseconds(11_900)) == [])
        machine.performFinished()
        #expect(machine.press(at: .seconds(12)) == [.announceHint, .scheduleCheck(at: .milliseconds(12_720))])
    }
}
