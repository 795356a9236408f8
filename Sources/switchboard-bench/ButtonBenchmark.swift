import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import SwitchboardConfiguration

/// The Action button in-process on the simulated chip: a press (edge) → the hint announced, and
/// a hold → the output switched. The hold itself (hold time plus one debounce window, by design)
/// is subtracted, leaving Switchboard's own latency.
struct ButtonBenchmark {
    static let holdTime = Duration.milliseconds(40)
    static let debounce = Duration.milliseconds(2)

    struct Outcome {
        var hint: [Duration] = []
        var perform: [Duration] = []
    }

    /// A chip that reports the moment every output is set.
    final class WatchedChip: GPIOChip {
        let chip: SimulatedGPIOChip
        let sets: AsyncStream<ContinuousClock.Instant>.Continuation
        init(_ chip: SimulatedGPIOChip, sets: AsyncStream<ContinuousClock.Instant>.Continuation) {
            self.chip = chip
            self.sets = sets
        }
        var info: GPIOChipInfo { chip.info }
        var now: Duration { chip.now }
        func offset(of line: GPIOLineSelector) throws -> Int { try chip.offset(of: line) }
        func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
            WatchedLine(try chip.request(line, configuration), sets: sets)
        }
    }

    final class WatchedLine: GPIOLineRequest {
        let line: any GPIOLineRequest
        let sets: AsyncStream<ContinuousClock.Instant>.Continuation
        init(_ line: any GPIOLineRequest, sets: AsyncStream<ContinuousClock.Instant>.Continuation) {
            self.line = line
            self.sets = sets
        }
        var offset: Int { line.offset }
        var configuration: GPIOLineConfiguration { line.configuration }
        var kernelDebounce: Duration { line.kernelDebounce }
        func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool { try line.reconfigure(configuration) }
        func value() throws -> Bool { try line.value() }
        func setValue(_ value: Bool) throws {
            try line.setValue(value)
            sets.yield(.now)
        }
        func edges() throws -> GPIOEdgeEvents { try line.edges() }
        func release() { line.release() }
    }

    let presses: Int

    func run() async throws -> Outcome {
        let configuration = try ConfigurationLoader.load(data: Data(#"""
        {
          "node": "bench",
          "chips": [ { "id": "main", "chip": "gpiochip0", "simulatedLines": 8 } ],
          "devices": [ { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 1 } } ],
          "controls": [ { "kind": "porch", "template": "toggle", "title": "Porch Light", "device": "porch" } ],
          "placements": [ { "id": "action", "control": "porch", "space": "actionButton" } ],
          "actionButtons": [ { "id": "button", "placement": "action", "holdTime": "40ms",
                               "gpio": { "chip": "main", "line": 5, "bias": "pullUp", "activeLow": true, "debounce": "2ms" }, "announce": [] } ]
        }
        """#.utf8))
        let simulated = SimulatedGPIOChip(lineCount: 8)
        let (sets, setSink) = AsyncStream<ContinuousClock.Instant>.makeStream(bufferingPolicy: .unbounded)
        let chip = WatchedChip(simulated, sets: setSink)
        let runtime = try await NodeRuntime(configuration: configuration, chips: ["main": chip], persisted: PersistedState(), stateFile: nil, log: Log(minimum: .error, journald: false))
        let button = try require(runtime.actionButtons["button"], "the Action button")
        var announcements = button.announcements.subscribe().makeAsyncIterator()
        var outputs = sets.makeAsyncIterator()
        var outcome = Outcome()
        let services = Task { await runtime.runServices() }
        defer { services.cancel() }
        for _ in 0..<presses {
            let pressed = ContinuousClock.now
            try simulated.drive(.offset(5), high: false)
            while let heard = await announcements.next(), heard.phase != .hint {}
            outcome.hint.append(ContinuousClock.now - pressed)
            guard let set = await outputs.next() else { break }
            outcome.perform.append(set - pressed - Self.holdTime - Self.debounce)
            while let heard = await announcements.next(), heard.phase != .performed {}
            try simulated.drive(.offset(5), high: true)
            try await Task.sleep(for: .milliseconds(10))
        }
        return outcome
    }
}

/// A `#require` for the benchmark: the value, or a thrown error naming what was missing.
func require<T>(_ value: T?, _ what: String = #function) throws -> T {
    guard let value else { throw HarnessError("missing: \(what)") }
    return value
}
