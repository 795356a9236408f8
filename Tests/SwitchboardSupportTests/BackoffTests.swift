import SwitchboardSupport
import Testing

@Suite struct BackoffTests {
    @Test func doublesFromInitialUpToMaximum() {
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(10))
        let delays = (0..<6).map { _ in backoff.recordFailure() }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
    }

    @Test func successStartsAgainFromInitial() {
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(60))
        _ = backoff.recordFailure()
        _ = backoff.recordFailure()
        backoff.recordSuccess()
        #expect(backoff.recordFailure() == .milliseconds(500))
    }

    @Test func jitterStaysWithinItsFractionBelowTheDelay() {
        var backoff = Backoff(initial: .seconds(4), maximum: .seconds(4), jitter: 0.25)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let delay = backoff.recordFailure(using: &generator)
            #expect(delay >= .seconds(3) && delay <= .seconds(4))
        }
    }
}
