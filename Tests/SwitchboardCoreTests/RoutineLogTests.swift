import ControlKit
import Foundation
@testable import SwitchboardCore
@testable import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The log under steady load: a few routine lines a minute per kind, how many were left out, and
/// every warning and error.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RoutineLogTests {
    func at(_ seconds: Int) -> OffsetInstant { OffsetInstant(offset: .seconds(seconds)) }

    @Test func atMostTheLimitPerWindowAndThenHowManyWereLeftOut() {
        var lines = RoutineLines(limit: 3, window: .seconds(60))
        #expect((0..<3).map { lines.admit("mqtt", at: at($0)) } == Array(repeating: .write(suppressedBefore: 0), count: 3))
        #expect((3..<10).map { lines.admit("mqtt", at: at($0)) } == Array(repeating: .suppress, count: 7))
        // Another kind has its own window.
        #expect(lines.admit("cli", at: at(10)) == .write(suppressedBefore: 0))
        #expect(lines.admit("mqtt", at: at(59)) == .suppress)
        // The window (from the first line, at 0 s) is over at 60 s: the next line says 8 were left out.
        #expect(lines.admit("mqtt", at: at(60)) == .write(suppressedBefore: 8))
        #expect(lines.admit("mqtt", at: at(61)) == .write(suppressedBefore: 0))
        // A quiet spell longer than a window: nothing was left out, so nothing is said.
        #expect(lines.admit("mqtt", at: at(500)) == .write(suppressedBefore: 0))
    }

    @Test func routineLinesAreLimitedOnTheInjectedClock() {
        let clock = ManualClock()
        let written = Probe<[String]>([])
        let log = Log(minimum: .info, journald: false, clock: clock, routineLimit: 2, routineWindow: .seconds(60)) { line in written.update { $0.append(line) } }
        for index in 0..<5 { log.routine("cli: commands performed", "cli: perform porch \(index)") }
        #expect(written.value == ["info: cli: perform porch 0", "info: cli: perform porch 1"])
        clock.advance(by: .seconds(59))
        log.routine("cli: commands performed", "cli: perform porch 5")
        #expect(written.value.count == 2)
        clock.advance(by: .seconds(1))
        log.routine("cli: commands performed", "cli: perform porch 6")
        log(.warning, "a warning")
        #expect(written.value.suffix(3) == [
            "info: … 4 similar lines (cli: commands performed) suppressed in the last 1m or more; --verbose writes every one",
            "info: cli: perform porch 6", "warning: a warning",
        ])
    }

    @Test func aBusyNodeLogsAFewLinesAMinuteAndEveryWarning() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "switchboard/garage-pi/controls/porch/result")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        for _ in 0..<25 { #expect(await daemon.cli(["toggle", "porch"]).status == 0) }
        for _ in 0..<5 { #expect(await daemon.cli(["toggle", "attic"]).status == 1) }
        for transaction in 0..<25 {
            observer.publish("switchboard/garage-pi/controls/porch/set", #"{"value": "TOGGLE", "transaction": \#(transaction)}"#)
            _ = await observer.waitFor("switchboard/garage-pi/controls/porch/result") { $0.transactionNumber == transaction }
        }
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("info: cli: perform porch") }.count == Log.routineLimit, "\(daemon.log)")
        #expect(lines.filter { $0.hasPrefix("info: mqtt: porch ") && $0.hasSuffix(" performed") }.count == Log.routineLimit, "\(daemon.log)")
        #expect(lines.filter { $0.hasPrefix("warning: cli: perform attic") }.count == 5, "every warning: \(daemon.log)")
    }

    @Test func verboseWritesEveryRoutineLine() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start(options: ["--verbose"])
        for _ in 0..<15 { #expect(await daemon.cli(["toggle", "porch"]).status == 0) }
        #expect(daemon.log.split(separator: "\n").filter { $0.hasPrefix("info: cli: perform porch") }.count == 15)
    }
}
