import SwitchboardGPIO
import SwitchboardTesting

/// Edge → handler latency on the simulated chip: the time from driving an input to a handler in
/// another task receiving its edge from the line's `AsyncSequence`, one edge in flight.
struct EdgeLatencyBenchmark {
    let edges: Int

    func run() async throws -> [Duration] {
        let clock = ContinuousClock()
        let chip = SimulatedGPIOChip(lineCount: 1)
        let line = try chip.request(.offset(0), GPIOLineConfiguration(.input(edges: .both)))
        let events = try line.edges()
        let (received, receivedContinuation) = AsyncStream<ContinuousClock.Instant>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in events { receivedContinuation.yield(clock.now) }
                receivedContinuation.finish()
            }
            var latencies: [Duration] = []
            latencies.reserveCapacity(edges)
            var receipts = received.makeAsyncIterator()
            for index in 0..<edges {
                let start = clock.now
                try chip.drive(.offset(0), high: index % 2 == 0)
                guard let end = await receipts.next() else { break }
                latencies.append(start.duration(to: end))
            }
            line.release()
            try await group.waitForAll()
            return latencies
        }
    }
}
