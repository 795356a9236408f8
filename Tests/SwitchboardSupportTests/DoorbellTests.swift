import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The doorbell behind the single-slot wake-ups (a command lane's queue, the auto-off schedule,
/// the daemon's reload requests, the state file's flusher): rings coalesce, none is lost, and
/// finishing ends the waiting.
@Suite(.timeLimit(.minutes(1)))
struct DoorbellTests {
    @Test func ringsBeforeAWaitAreKeptAndCountAsOne() async {
        let bell = Doorbell()
        bell.ring()
        bell.ring()
        bell.ring()
        #expect(await bell.wait(), "a ring made before anyone waited is kept")
        bell.finish()
        #expect(await bell.wait() == false, "three rings woke the waiter once")
    }

    @Test func aRingWakesTheWaitingTaskOnceAndTheNextWaitSuspends() async {
        let bell = Doorbell()
        let wakeUps = Probe(0)
        let waiter = Task {
            for await _ in bell { wakeUps.update { $0 += 1 } }
        }
        // Rung while it waits (or just before: either way one wake-up).
        try? await Task.sleep(for: .milliseconds(20))
        bell.ring()
        #expect(await wakeUps.wait { $0 == 1 } == 1)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(wakeUps.value == 1, "no ring, no wake-up")
        bell.ring()
        #expect(await wakeUps.wait { $0 == 2 } == 2)
        waiter.cancel()
        await waiter.value
    }

    @Test func finishEndsTheWaitAndEveryRingAfterIsIgnored() async {
        let bell = Doorbell()
        let ended = Probe(false)
        let waiter = Task {
            for await _ in bell {}
            ended.update { $0 = true }
        }
        try? await Task.sleep(for: .milliseconds(20))
        bell.finish()
        #expect(await ended.wait { $0 } == true, "the iteration ended with the doorbell")
        waiter.cancel()
        bell.ring()
        #expect(bell.isFinished)
        #expect(await bell.wait() == false, "a ring after finish wakes no one")
    }

    @Test func aPendingRingIsTakenBeforeTheFinish() async {
        let bell = Doorbell()
        bell.ring()
        bell.finish()
        #expect(await bell.wait())
        #expect(await bell.wait() == false)
    }

    @Test func cancellingTheWaitingTaskEndsItsWait() async {
        let bell = Doorbell()
        let waiter = Task { await bell.wait() }
        try? await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        #expect(await waiter.value == false)
        bell.ring()
        #expect(await bell.wait(), "the doorbell still works for the next waiter")
    }
}
