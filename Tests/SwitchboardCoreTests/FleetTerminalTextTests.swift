import Foundation
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// Another node's text on whoever's terminal looks at the fleet: a stand-in node on the broker
/// publishes names, values, statuses, buttons and answers full of escape sequences, and the CLI prints none.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct FleetTerminalTextTests {
    static let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m\u{202E}gnp.exe\u{7F}\r\n"

    func fleet(_ broker: MosquittoBroker, _ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["--broker", "mqtt://127.0.0.1:\(broker.port)"] + arguments)
    }

    /// A string as JSON writes it (control characters as \u escapes).
    func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]), as: UTF8.self).dropFirst().dropLast().description
    }

    func noControls(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 != "\n" && TerminalText.isControl($0) }
    }

    @Test func anotherNodesEscapeSequencesNeverReachTheTerminal() async throws {
        let broker = try await MosquittoBroker()
        let node = try await MQTTObserver(port: broker.port, filter: "switchboard/evil-pi/controls/+/set")
        let base = "switchboard/evil-pi"
        let text = json(Self.hostile)
        node.connection.publish(MQTTMessage(topic: "\(base)/status", text: "online", qos: 1, retain: true))
        let presentation = #"{"id":\#(text),"kind":\#(text),"template":"toggle","space":"controlCenter","size":"medium","displayName":\#(text),"title":\#(text),"value":true,"valueText":\#(text),"symbol":\#(text),"tint":null,"status":\#(text),"actionHint":\#(text),"stale":false,"needsConfiguration":false,"redacted":false}"#
        node.connection.publish(MQTTMessage(topic: "\(base)/controls/lamp", text: presentation, qos: 1, retain: true))
        node.connection.publish(MQTTMessage(topic: "\(base)/buttons", text: #"[{"id":\#(text),"short":\#(text),"double":\#(text)}]"#, qos: 1, retain: true))
        try await Task.sleep(for: .milliseconds(300))

        for arguments in [["center"], ["center", "--json"]] {
            let drawn = await fleet(broker, arguments)
            #expect(drawn.status == 0, "\(drawn.stderr)")
            #expect(drawn.stdout.contains("evil-pi"), "\(drawn.stdout)")
            #expect(noControls(drawn.stdout) && noControls(drawn.stderr), "\(arguments): \(drawn.stdout.debugDescription)")
        }
        let drawn = await fleet(broker, ["center"])
        #expect(drawn.stdout.contains("\u{FFFD}[2J"), "each control character shown as U+FFFD, the rest kept: \(drawn.stdout.debugDescription)")
        #expect(drawn.stdout.contains("\nbutton \u{FFFD}[2J"), "its buttons too: \(drawn.stdout.debugDescription)")

        // The node answers a command with an error full of escape sequences: printed sanitised.
        let answering = Task {
            let set = await node.waitFor("\(base)/controls/lamp/set", timeout: .seconds(20))
            let transaction = set?.text?.firstMatch(of: /"transaction": "([^"]+)"/).map { String($0.1) } ?? ""
            node.connection.publish(MQTTMessage(topic: "\(base)/controls/lamp/result", text: #"{"transaction":"\#(transaction)","outcome":"refused","error":\#(text)}"#, qos: 1))
        }
        let refused = await fleet(broker, ["toggle", "evil-pi/lamp"])
        await answering.value
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.hasPrefix("switchboard: evil-pi/lamp: refused: \u{FFFD}[2J"), "\(refused.stderr.debugDescription)")
        #expect(noControls(refused.stderr.dropLast().description) && noControls(refused.stdout), "\(refused.stderr.debugDescription)")
    }

    @Test func sanitisingReplacesEveryControlAndKeepsPrintableUnicode() {
        #expect(TerminalText.sanitized("Küche 💡 — 50 %") == "Küche 💡 — 50 %")
        #expect(TerminalText.sanitized("a\u{1B}[2Jb\u{9B}c\u{0}d\u{7F}e\u{202E}f\n") == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f\u{FFFD}")
    }
}
