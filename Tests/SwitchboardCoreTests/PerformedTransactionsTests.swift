@testable import SwitchboardCore
import SwitchboardSupport
import Testing

/// A transaction is performed at most once, remembered for a bounded time and count.
@Suite struct PerformedTransactionsTests {
    func at(_ seconds: Int) -> OffsetInstant { OffsetInstant(offset: .seconds(seconds)) }
    let key = PerformedTransactions.key(control: "garage", transaction: .string("t1"))

    @Test func aRepeatWhileInFlightIsDroppedAndOneAfterTheAnswerGetsIt() {
        var performed = PerformedTransactions()
        #expect(performed.arrived(key, at: at(0)) == .new)
        #expect(performed.arrived(key, at: at(1)) == .inFlight)
        performed.answered(key, result: Array("done".utf8))
        #expect(performed.arrived(key, at: at(2)) == .answered(Array("done".utf8)))
        #expect(performed.arrived(PerformedTransactions.key(control: "porch", transaction: .string("t1")), at: at(2)) == .new, "another control's command")
        #expect(performed.arrived(PerformedTransactions.key(control: "garage", transaction: .number(1)), at: at(2)) == .new, "1 is not \"1\"")
    }

    @Test func forgottenAfterItsLifetimeAndBeyondTheBound() {
        var performed = PerformedTransactions()
        #expect(performed.arrived(key, at: at(0)) == .new)
        performed.answered(key, result: [])
        #expect(performed.arrived(key, at: at(600)) == .answered([]))
        #expect(performed.arrived(key, at: at(601)) == .new, "remembered for ten minutes")
        for index in 0..<PerformedTransactions.memory { _ = performed.arrived("other\(index)", at: at(602)) }
        #expect(performed.count == PerformedTransactions.memory)
        #expect(performed.arrived(key, at: at(602)) == .new, "the oldest goes first")
    }

    @Test func aCommandTakenAgainInItsTurnIsNotARepeat() {
        var performed = PerformedTransactions()
        #expect(performed.arrived(key, at: at(0)) == .new)
        performed.forget(key)
        #expect(performed.arrived(key, at: at(0)) == .new)
        #expect(performed.count == 1)
    }
}
