import Foundation
import SwitchboardTesting

/// Mixed load for a long time, to see whether switchboardd's memory or descriptors grow: MQTT
/// commands at a steady rate over 64 GPIO controls, state messages from 10 devices of another
/// system, local-socket clients (the CLI's `status`) and a reload (SIGHUP) every minute. The
/// daemon's resident memory and open descriptors are sampled every 30 s; the figures are their
/// slopes over the second half of the run (the first minutes warm allocator pools up) and the
/// resident memory's high-water mark per five minutes, which a leak makes climb.
@MainActor
struct SoakBenchmark {
    struct Sample {
        var at: Duration
        var residentKiB: Int
        var descriptors: Int
        var commands: Int
    }

    struct Outcome {
        var samples: [Sample] = []
        var sent = 0
        var answered = 0
        var reordered = 0
        var wrongFinalStates = 0
        var cliFailures = 0
        var reloads = 0
    }

    let minutes: Int
    let rate: Int

    func run() async throws -> Outcome {
        let broker = try await MosquittoBroker()
        let node = try BenchNode(controls: 64, remotes: 10, port: broker.port)
        let load = try await MQTTLoad(port: broker.port, filters: ["\(BenchNode.base)/controls/+", "\(BenchNode.base)/controls/+/result"])
        defer { load.stop() }
        _ = await load.drain(quiet: .seconds(1))
        var sustained = SustainedRateBenchmark(load: load, controls: 64)
        var outcome = Outcome()
        let started = ContinuousClock.now
        func sample() -> Sample {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(node.pid)/fd").count) ?? -1
            return Sample(at: ContinuousClock.now - started, residentKiB: node.sample.residentBytes / 1024, descriptors: descriptors, commands: outcome.sent)
        }
        outcome.samples.append(sample())
        var round = 0
        while ContinuousClock.now - started < .seconds(minutes * 60) {
            let chunk = await sustained.run(rate: rate, duration: .seconds(25))
            outcome.sent += chunk.sent
            outcome.answered += chunk.answered
            outcome.reordered += chunk.reordered
            outcome.wrongFinalStates += chunk.wrongFinalStates
            // The other doors: devices of another system change, the CLI asks, a reload.
            for index in 0..<200 { load.publish("bench/remote/\(index % 10)", index % 3 == 0 ? "ON" : "OFF") }
            for _ in 0..<10 {
                let status = await ChildProcess.run(BuiltProducts.path(of: "switchboard"), ["--socket", node.directory + "/sb.sock", "status"])
                if status.status != 0 { outcome.cliFailures += 1 }
            }
            if round % 2 == 1 {
                kill(node.pid, SIGHUP)
                outcome.reloads += 1
            }
            round += 1
            _ = await load.drain()
            let deadline = started + .seconds(30 * (outcome.samples.count))
            if ContinuousClock.now < deadline { try? await Task.sleep(until: deadline) }
            outcome.samples.append(sample())
        }
        return outcome
    }

    /// The resident memory's highest sample in each five minutes of the run.
    static func highWaterPerFiveMinutes(_ samples: [Sample]) -> [Int] {
        var marks: [Int] = []
        for sample in samples.dropFirst() {
            let window = Int((sample.at.seconds - 0.001) / 300)
            while marks.count <= window { marks.append(0) }
            marks[window] = max(marks[window], sample.residentKiB)
        }
        return marks
    }

    /// The least-squares slope of `value` over the second half of the samples, per hour.
    static func slopePerHour(_ samples: [Sample], _ value: (Sample) -> Int) -> Double {
        let points = samples.suffix(samples.count / 2).map { ($0.at.seconds / 3600, Double(value($0))) }
        guard points.count >= 2 else { return 0 }
        let meanX = points.map(\.0).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.1).reduce(0, +) / Double(points.count)
        let covariance = points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let variance = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance : 0
    }
}
