import SwitchboardGPIO
import SwitchboardTesting

/// Edge → handler latency: the time from driving an input to a handler in another task receiving
/// its edge from the line's `AsyncSequence`, one edge in flight. On the simulated chip (the
/// software path alone), or on a kernel gpio-sim chip through libgpiod (the HIL VM: the input is
/// driven through sysfs, so the kernel's interrupt and the read of the line request are in it).
struct EdgeLatencyBenchmark {
    enum Bench: String {
        case simulated
        case kernel
    }

    let edges: Int
    var bench: Bench = .simulated

    func run() async throws -> [Duration] {
        switch bench {
        case .simulated:
            let chip = SimulatedGPIOChip(lineCount: 1)
            let line = try chip.request(.offset(0), GPIOLineConfiguration(.input(edges: .both)))
            return try await measure(line) { try chip.drive(.offset(0), high: $0) }
        case .kernel:
            let simulated = try KernelSimulatedChip(label: "sb-bench-edge", lineCount: 1)
            let chip = try LibgpiodChip(path: simulated.path)
            let line = try chip.request(.offset(0), GPIOLineConfiguration(.input(edges: .both)))
            return try await measure(line) { try simulated.setPull(0, high: $0) }
        }
    }

    private func measure(_ line: any GPIOLineRequest, drive: (Bool) throws -> Void) async throws -> [Duration] {
        let clock = ContinuousClock()
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
                try drive(index % 2 == 0)
                guard let end = await receipts.next() else { break }
                latencies.append(start.duration(to: end))
            }
            line.release()
            try await group.waitForAll()
            return latencies
        }
    }
}
