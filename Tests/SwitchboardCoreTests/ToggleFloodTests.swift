import Foundation
import SwitchboardTesting
import Testing

/// 1,001 `TOGGLE`s with transactions sent at once to a relay that is off: most are superseded
/// while a few are performed, yet the relay ends where 1,001 toggles leave it, on, and every
/// sender gets its answer. (Before toggles were resolved as they were replaced, it ended on or
/// off by how many happened to be performed: 8 or 27 of 1,000 in two runs. `CommandLaneTests`
/// holds the resolution exactly.)
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ToggleFloodTests {
    static let base = MQTTEndToEndTests.base

    @Test func aThousandAndOneTogglesEndOnAndEachIsAnswered() async throws {
        let broker = try await MosquittoBroker(maxQueuedMessages: 100_000)
        let results = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/controls/porch/result")
        let daemon = try DaemonHarness(configuration: MQTTEndToEndTests().configuration(port: broker.port))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(broker.port)") })
        #expect(await daemon.cli(["status"]).stdout.contains("output porch: off"))

        for transaction in 1...1001 {
            results.publish("\(Self.base)/controls/porch/set", #"{"value": "TOGGLE", "transaction": \#(transaction)}"#)
        }
        let answers = await results.received(1001, on: "\(Self.base)/controls/porch/result", timeout: .seconds(60))
        #expect(answers.count == 1001)
        let performed = answers.filter { $0.text?.contains(#""outcome":"performed""#) == true }.count
        let superseded = answers.filter { $0.text?.contains(#""outcome":"superseded""#) == true }.count
        #expect(performed + superseded == 1001 && performed >= 1, "\(performed) performed, \(superseded) superseded")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output porch: on") }, "1,001 toggles leave it on (\(performed) performed)")
        print("toggle flood: \(performed) performed, \(superseded) superseded")
        #expect(await daemon.signal(SIGTERM) == 0)
    }
}
