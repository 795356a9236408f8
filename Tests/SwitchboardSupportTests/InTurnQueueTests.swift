import SwitchboardSupport
import SwitchboardTesting
import Testing

@Suite struct InTurnQueueTests {
    /// What `now` takes is handled at once while nothing waits; once one waits, everything after
    /// it waits behind it, even what `now` would take; once served, `now` is asked again.
    @Test func workWaitsBehindWhatWaitsBeforeIt() async {
        let queue = InTurnQueue<Int>()
        var handledNow: [Int] = []
        let now: (Int) -> Bool = { value in
            guard value % 10 != 0 else { return false }
            handledNow.append(value)
            return true
        }
        queue.submit(1, now: now)
        queue.submit(10, now: now)
        queue.submit(2, now: now)
        queue.submit(3, now: now)
        #expect(handledNow == [1])
        let served = Locked<[Int]>([])
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await queue.serve { value in served.withLock { $0.append(value) } } }
            #expect(await yielding(until: { served.withLock { $0.count } >= 3 }))
            group.cancelAll()
        }
        #expect(served.withLock { $0 } == [10, 2, 3])
        queue.submit(4, now: now)
        #expect(handledNow == [1, 4])
    }
}
