import SwitchboardCore
import SwitchboardTesting
import Testing

/// The state file reaches storage at most once a second while changes come, and at once when the
/// node stops.
@Suite(.timeLimit(.minutes(1)))
struct StateFlusherTests {
    /// A flusher with a one-second window on a manual clock, counting its flushes.
    static func flusher() -> (ManualClock, Probe<Int>, StateFlusher) {
        let clock = ManualClock()
        let flushes = Probe(0)
        return (clock, flushes, StateFlusher(window: .seconds(1), clock: clock) { flushes.update { $0 += 1 } })
    }

    @Test func savesInOneWindowShareOneFlushAndALaterSaveStartsTheNext() async {
        let (clock, flushes, flusher) = Self.flusher()
        await withRunningService({ await flusher.run() }) {
            flusher.noteSaved()
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(1))])
            flusher.noteSaved()
            flusher.noteSaved()
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
            flusher.noteSaved()
            await clock.waitForSleepers(1)
        }
        #expect(flushes.value == 1)
    }
}
