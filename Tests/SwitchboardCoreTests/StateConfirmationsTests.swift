@testable import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// A command to another system's device waits for its state message, timed on the injected clock.
@Suite struct StateConfirmationsTests {
    @Test func confirmationBeforeTheTimeoutCompletesTheCommand() async throws {
        let clock = ManualClock()
        let confirmations = StateConfirmations(clock: clock)
        let waiting = Task { await confirmations.wait(for: "kitchen", value: true, timeout: .seconds(5), after: {}) }
        await clock.waitForSleepers(1)
        #expect(clock.pendingDeadlines == [OffsetInstant(offset: .seconds(5))], "the timeout runs on the injected clock")
        confirmations.confirm("kitchen", value: false)
        confirmations.confirm("porch", value: true)
        clock.advance(by: .milliseconds(4_999))
        confirmations.confirm("kitchen", value: true)
        #expect(await waiting.value == true)
        #expect(confirmations.waiting == 0)
        #expect(clock.sleeperCount == 0, "the timer is gone with the wait")
    }

    @Test func noConfirmationFailsExactlyAtTheTimeout() async throws {
        let clock = ManualClock()
        let confirmations = StateConfirmations(clock: clock)
        let waiting = Task { await confirmations.wait(for: "kitchen", value: true, timeout: .seconds(5), after: {}) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(4_999))
        #expect(confirmations.waiting == 1)
        clock.advance(by: .milliseconds(1))
        #expect(await waiting.value == false)
        #expect(confirmations.waiting == 0)
    }

    @Test func anAnswerDuringTheSendIsNotMissed() async throws {
        let confirmations = StateConfirmations(clock: ManualClock())
        let confirmed = await confirmations.wait(for: "kitchen", value: true, timeout: .seconds(5)) {
            confirmations.confirm("kitchen", value: true)
        }
        #expect(confirmed)
        #expect(confirmations.waiting == 0)
    }

    @Test func cancellingTheCommandEndsItsWait() async throws {
        let clock = ManualClock()
        let confirmations = StateConfirmations(clock: clock)
        let waiting = Task { await confirmations.wait(for: "kitchen", value: true, timeout: .seconds(5), after: {}) }
        await clock.waitForSleepers(1)
        waiting.cancel()
        #expect(await waiting.value == false)
        #expect(confirmations.waiting == 0)
    }
}
