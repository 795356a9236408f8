import Foundation
import SwitchboardTesting
import Testing

/// A Tasmota plug whose state is not retained: with a `stateRequest`, the node asks for it at
/// start and on every reconnect, so its control is current at once, not stale until it changes.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct StateRequestTests {
    func configuration(port: Int, request: Bool) -> String {
        let stateRequest = request ? #", "stateRequest": { "topic": "cmnd/plug1/POWER", "payload": "" }"# : ""
        return #"""
        {
          "node": "plugs",
          "mqtt": { "host": "127.0.0.1", "port": \#(port), "discovery": false },
          "devices": [
            { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": {
                "stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER", "onValue": "ON", "offValue": "OFF"\#(stateRequest) } }
          ],
          "controls": [ { "kind": "plug", "template": "toggle", "device": "plug" } ],
          "placements": [ { "id": "plug", "control": "plug" } ]
        }
        """#
    }

    /// A stand-in Tasmota plug that is on: it answers each request on its command topic (an empty
    /// payload) with its state, not retained, as Tasmota does.
    func plug(_ port: Int) async throws -> (MQTTObserver, Task<Void, Never>) {
        let plug = try await MQTTObserver(port: port, filter: "cmnd/plug1/#")
        let answering = Task {
            var answered = 0
            while !Task.isCancelled {
                let requests = await plug.received(answered + 1, on: "cmnd/plug1/POWER", timeout: .seconds(30))
                guard requests.count > answered else { continue }
                answered = requests.count
                plug.publish("stat/plug1/POWER", "ON")
            }
        }
        return (plug, answering)
    }

    @Test func theControlIsCurrentAtStartAndAfterAReconnect() async throws {
        let broker = try await MosquittoBroker()
        let (plug, answering) = try await plug(broker.port)
        defer { answering.cancel() }
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, request: true))
        try await daemon.start()
        var status = ""
        #expect(await daemon.waitUntil(timeout: .seconds(15)) {
            status = await daemon.cli(["status"]).stdout
            return status.contains("control plug Desk Plug On\n")
        }, "\(status)")
        let asked = await answeredAndAskedNoMore(plug)

        broker.kill()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: disconnected") })
        try await broker.start()
        #expect(await daemon.waitUntil(timeout: .seconds(20)) { daemon.log.components(separatedBy: "mqtt: connected").count - 1 == 2 })
        #expect(await plug.received(asked + 1, on: "cmnd/plug1/POWER", timeout: .seconds(20)).count == asked + 1, "asked again after the reconnect")
    }

    /// Once the plug's answer is in, the node asks no more: its requests so far are all empty (as
    /// Tasmota reads them), and none follow in the next 3.5 s, past the next retry. (More than
    /// one came only if the answer took longer than the first retry's 2 s.) Returns their number.
    func answeredAndAskedNoMore(_ plug: MQTTObserver) async -> Int {
        func requests() -> [String?] { plug.messages.filter { $0.topic == "cmnd/plug1/POWER" }.map(\.text) }
        let asked = requests()
        #expect(!asked.isEmpty && asked.allSatisfy { $0 == "" }, "\(asked)")
        try? await Task.sleep(for: .seconds(3.5))
        #expect(requests().count == asked.count, "asked again after it answered: \(requests())")
        return asked.count
    }

    @Test func aDeviceThatSubscribesAfterTheNodeAskedIsAskedAgain() async throws {
        let broker = try await MosquittoBroker()
        let witness = try await MQTTObserver(port: broker.port, filter: "cmnd/plug1/#")
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, request: true))
        try await daemon.start()
        #expect(await witness.received(1, on: "cmnd/plug1/POWER").count == 1, "the node asked at connect")
        // The plug comes to the broker after that (as after a broker restart, when every client
        // reconnects in its own time): it never heard the first request.
        let (plug, answering) = try await plug(broker.port)
        defer { answering.cancel() }
        var status = ""
        #expect(await daemon.waitUntil(timeout: .seconds(10)) {
            status = await daemon.cli(["status"]).stdout
            return status.contains("control plug Desk Plug On\n")
        }, "\(status)")
        #expect(daemon.log.contains("info: mqtt: no state yet from plug 2s after asking; asking again\n"), "\(daemon.log)")
        _ = await answeredAndAskedNoMore(plug)
    }

    @Test func withoutAStateRequestThePlugStaysStale() async throws {
        let broker = try await MosquittoBroker()
        let (plug, answering) = try await plug(broker.port)
        defer { answering.cancel() }
        let daemon = try DaemonHarness(configuration: configuration(port: broker.port, request: false))
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        try await Task.sleep(for: .seconds(1))
        #expect(await daemon.cli(["status"]).stdout.contains("control plug Desk Plug Off (stale): Desk Plug's state is not known: no state message on stat/plug1/POWER yet\n"))
        #expect(plug.messages.isEmpty)
    }
}
