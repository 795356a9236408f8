import ControlKit
import Testing

@Suite struct ReloadCoalescerTests {
    @Test func firstRequestStartsAReload() {
        var coalescer = ReloadCoalescer<String>()
        #expect(coalescer.request("light") == .startReload)
        #expect(coalescer.isReloading("light"))
        #expect(coalescer.finished("light") == .idle)
        #expect(!coalescer.isReloading("light"))
    }

    @Test func anyNumberOfRequestsDuringAReloadCostOneMore() {
        var coalescer = ReloadCoalescer<String>()
        #expect(coalescer.request("light") == .startReload)
        for _ in 0..<1000 { #expect(coalescer.request("light") == .coalesced) }
        #expect(coalescer.finished("light") == .reloadAgain)
        #expect(coalescer.finished("light") == .idle)
    }

    @Test func kindsAreIndependent() {
        var coalescer = ReloadCoalescer<String>()
        #expect(coalescer.request("light") == .startReload)
        #expect(coalescer.request("fan") == .startReload)
        #expect(coalescer.request("light") == .coalesced)
        #expect(coalescer.finished("fan") == .idle)
        #expect(coalescer.finished("light") == .reloadAgain)
    }
}
