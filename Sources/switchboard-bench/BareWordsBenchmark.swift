import Foundation
import SwitchboardMQTT
import SwitchboardTesting

/// What another home system sends: bare `ON`/`OFF` words at QoS 0 to 8 relays, with no
/// transaction, offered at a fixed rate for a few seconds, to the floor and then to switchboardd.
///
/// Without a transaction a command's only answer is its event on `<base>/outcomes`, so this
/// counts what the node did with each: performed (the throughput), superseded (replaced while it
/// waited by a newer command to the same relay: answered, not performed), refused or failed, or
/// not answered at all. Each relay's last published state must be its last command's value. The
/// CPU of the floor and of the node are measured over the same offered load, per command offered
/// and, for the node, per command performed.
@MainActor
struct BareWordsBenchmark {
    struct Outcome {
        var offered: Int
        var sent = 0
        var performed = 0
        var superseded = 0
        var refusedOrFailed = 0
        var wrongFinalStates = 0
        /// From the first command to the last answer.
        var elapsed: Duration = .zero
        var nodeCPU: Duration = .zero
        var floorAnswered = 0
        var floorCPU: Duration = .zero

        var unanswered: Int { sent - performed - superseded - refusedOrFailed }
        var performedRate: Double { Double(performed) / max(elapsed.seconds, 0.001) }
        /// Every command answered, none refused, the last states right, and at least 90% of the
        /// offered commands performed (the rest superseded).
        var keptUp: Bool {
            unanswered == 0 && refusedOrFailed == 0 && wrongFinalStates == 0 && Double(performed) >= 0.9 * Double(sent)
        }
    }

    static let relays = 8
    let load: MQTTLoad
    let node: BenchNode
    let floorPID: Int32
    var random = SeededRandom(seed: 0xB0A7)
    /// Each relay's value as the node last published it.
    var published = [Bool?](repeating: nil, count: relays)

    /// The subscriptions this benchmark's client needs.
    static var filters: [String] { ["\(BenchNode.base)/controls/+", "\(BenchNode.base)/outcomes", "floor/+"] }

    /// Reads what the broker holds (the relays' retained states) before the first run.
    mutating func prime() async {
        for message in await load.drain() { notePresentation(message) }
    }

    private mutating func notePresentation(_ message: MQTTMessage) {
        if let relay = Self.relay(message.topic, prefix: "\(BenchNode.base)/controls/"), let text = message.text {
            published[relay] = text.contains(#""value":true"#)
        }
    }

    /// Offers `rate` words a second for `duration` to the floor, then to the node, and waits for
    /// their answers (at most 5 s without one).
    mutating func run(rate: Int, duration: Duration) async -> Outcome {
        var outcome = Outcome(offered: rate)
        let words = (0..<Int(Double(rate) * duration.seconds)).map { _ in random.next() % 2 == 0 }

        let floorBefore = ProcessSample(pid: floorPID)
        _ = await offer(words, rate: rate, to: "floor")
        outcome.floorAnswered = await collect(expecting: words.count) { message in message.topic.hasPrefix("floor/") }
        outcome.floorCPU = (ProcessSample(pid: floorPID).cpu - floorBefore.cpu) / max(words.count, 1)

        let nodeBefore = node.sample
        let started = await offer(words, rate: rate, to: "\(BenchNode.base)/controls")
        outcome.sent = words.count
        let expected = (0..<Self.relays).map { relay in words.indices.last { $0 % Self.relays == relay }.map { words[$0] } }
        var lastProgress = ContinuousClock.now
        collecting: while outcome.unanswered > 0 || published != expected, let event = await load.next() {
            switch event {
            case .message(let message, let at):
                lastProgress = .now
                if message.topic == "\(BenchNode.base)/outcomes" {
                    guard let event = Self.event(message) else { continue }
                    switch event.type {
                    case "performed": outcome.performed += 1
                    case "superseded": outcome.superseded += event.count
                    default: outcome.refusedOrFailed += event.count
                    }
                    outcome.elapsed = at - started
                } else {
                    notePresentation(message)
                }
            case .tick:
                if ContinuousClock.now - lastProgress > .seconds(5) { break collecting }
            }
        }
        outcome.nodeCPU = node.sample.cpu - nodeBefore.cpu
        outcome.wrongFinalStates = zip(published, expected).filter { $0 != $1 }.count
        return outcome
    }

    /// Publishes the words at `rate`, relay after relay; returns when the first went.
    private func offer(_ words: [Bool], rate: Int, to prefix: String) async -> ContinuousClock.Instant {
        let started = ContinuousClock.now
        var sent = 0
        while sent < words.count {
            let due = min(words.count, Int(Double(rate) * (ContinuousClock.now - started).seconds) + 1)
            while sent < due {
                load.publish("\(prefix)/c\(sent % Self.relays)/set", words[sent] ? "ON" : "OFF", qos: 0)
                sent += 1
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return started
    }

    /// Reads until `expecting` messages that `counts` have come, or 5 s without one.
    private func collect(expecting: Int, counts: (MQTTMessage) -> Bool) async -> Int {
        var seen = 0
        var lastProgress = ContinuousClock.now
        while seen < expecting, let event = await load.next() {
            switch event {
            case .message(let message, _):
                if counts(message) {
                    seen += 1
                    lastProgress = .now
                }
            case .tick:
                if ContinuousClock.now - lastProgress > .seconds(5) { return seen }
            }
        }
        return seen
    }

    /// `c3` in `<prefix>c3` → 3, for the benchmark's relays.
    private static func relay(_ topic: String, prefix: String) -> Int? {
        guard topic.hasPrefix(prefix), let index = Int(topic.dropFirst(prefix.count).dropFirst()), index < relays,
              topic.dropFirst(prefix.count).first == "c" else { return nil }
        return index
    }

    /// An outcome event's type and how many commands it answers (`count`, else 1).
    private static func event(_ message: MQTTMessage) -> (type: String, count: Int)? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any],
              let type = object["event_type"] as? String else { return nil }
        return (type, (object["count"] as? NSNumber)?.intValue ?? 1)
    }
}
