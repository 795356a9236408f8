import SwitchboardTesting
import Testing

/// The probe tests wait on: a wait ends when its condition holds, and a timeout is a timeout only
/// once the work queued before it has had its turn.
struct ProbeTests {
    @Test func aConditionThatNeverHoldsEndsTheWaitWithNil() async {
        let probe = Probe(0)
        let start = ContinuousClock.now
        #expect(await probe.wait(timeout: .milliseconds(100)) { $0 == 1 } == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
    }

    @Test func workQueuedWhenTheDeadlinePassesIsSeenBeforeTheTimeout() async {
        // The deadline has passed at the first check, as it has for a waiter that the cooperative
        // pool resumes late; the change it waits for is a few turns of queued work away.
        let probe = Probe(0)
        let producer = Task {
            for _ in 0..<5 { await Task.yield() }
            probe.update { $0 = 1 }
        }
        #expect(await probe.wait(timeout: .zero) { $0 == 1 } == 1)
        await producer.value
    }
}
