import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The coalesced action behind the state file's flushes and the memory release after bursts: at most
/// once a window while notes come, once more after the last note, and at once when stopped.
@Suite(.timeLimit(.minutes(1)))
struct CoalescedActionTests {
    /// An action with a one-second window on a manual clock, counting its runs.
    static func flusher() -> (ManualClock, Probe<Int>, CoalescedAction) {
        let clock = ManualClock()
        let flushes = Probe(0)
        return (clock, flushes, CoalescedAction(window: .seconds(1), clock: clock) { flushes.update { $0 += 1 } })
    }

    @Test func savesInOneWindowShareOneFlushAndALaterSaveStartsTheNext() async {
        let (clock, flushes, flusher) = Self.flusher()
        await withRunningService({ await flusher.run() }) {
            flusher.note()
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(1))])
            flusher.note()
            flusher.note()
            clock.advance(by: .milliseconds(999))
            #expect(flushes.value == 0)
            clock.advance(by: .milliseconds(1))
            // The saves made during the window are covered by this flush, but one signal is
            // pending: a second window runs and flushes once more.
            await clock.waitForSleepers(1)
            #expect(flushes.value == 1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(2))])
            clock.advance(by: .seconds(1))
            _ = await flushes.wait { $0 == 2 }
            #expect(flushes.value == 2)
            clock.advance(by: .seconds(10))
            #expect(flushes.value == 2, "no saves, no flushes")
        }
    }

    @Test func stoppingFlushesWhatIsPendingAtOnce() async {
        let (clock, flushes, flusher) = Self.flusher()
        await withRunningService({ await flusher.run() }) {
            flusher.note()
            await clock.waitForSleepers(1)
        }
        #expect(flushes.value == 1)
    }
}
