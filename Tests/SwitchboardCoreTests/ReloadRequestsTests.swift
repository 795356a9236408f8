@testable import SwitchboardCore
import Testing

/// The reload requests' state machine: one reload runs, a storm behind it is one more.
struct ReloadRequestsTests {
    @Test func nothingAskedIsNothingToDo() {
        var requests = ReloadRequests<Int>()
        let step = requests.next()
        #expect(step == nil)
    }

    @Test func aStormWhileAReloadRunsIsOneMoreReloadAnsweringEveryCaller() {
        var requests = ReloadRequests<Int>()
        _ = requests.reload(answering: 1)
        guard case .reload(let first) = requests.next() else { Issue.record("no reload"); return }
        #expect(first == [1])
        // While it runs: a thousand SIGHUPs and two applies.
        for _ in 0..<1000 { _ = requests.reload(answering: nil) }
        let accepted = [requests.reload(answering: 2), requests.reload(answering: 3)]
        #expect(accepted == [true, true])
        guard case .reload(let second) = requests.next() else { Issue.record("no second reload"); return }
        #expect(second == [2, 3])
        let after = requests.next()
        #expect(after == nil, "nothing more after the one that covered them all")
    }

    @Test func aStopGoesFirstAndAnswersTheWaitingAndEveryLaterCaller() {
        var requests = ReloadRequests<Int>()
        _ = requests.reload(answering: nil)
        _ = requests.reload(answering: 4)
        requests.stop()
        guard case .stop(let waiting) = requests.next() else { Issue.record("no stop"); return }
        #expect(waiting == [4])
        let late = requests.reload(answering: 5)
        #expect(!late, "a caller after the stop is told at once")
        guard case .stop(let none) = requests.next() else { Issue.record("the stop is forgotten"); return }
        #expect(none.isEmpty)
    }
}
