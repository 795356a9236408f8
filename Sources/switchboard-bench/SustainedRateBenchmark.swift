import SwitchboardMQTT
import SwitchboardTesting

/// Commands offered at a fixed rate across the node's controls, each with a transaction, for a
/// few seconds: every command must be answered (no loss), each control's answers must come in the
/// order its commands went (no reordering), and each control's last published state must be its
/// last command's value.
///
/// Commands go at QoS 0: at QoS 1 mosquitto keeps a client's order only within its in-flight
/// window (`max_inflight_messages`, 20; it promises order only at 1), and past it, at a few
/// thousand a second, whole runs of commands reached the node behind later ones.
@MainActor
struct SustainedRateBenchmark {
    struct Outcome {
        var offered: Int
        var sent = 0
        var answered = 0
        var reordered = 0
        var wrongFinalStates = 0
        /// From the first command to the last answer.
        var elapsed: Duration = .zero
        var lost: Int { sent - answered }
        /// Commands answered per second: the rate the node kept up with.
        var answeredRate: Double { Double(answered) / max(elapsed.seconds, 0.001) }
        var clean: Bool { lost == 0 && reordered == 0 && wrongFinalStates == 0 }
    }

    let load: MQTTLoad
    let controls: Int
    var random = SeededRandom(seed: 0x5A7E)
    var nextTransaction = 0

    /// Offers `rate` commands a second for `duration`, then waits up to 10 s for the answers.
    mutating func run(rate: Int, duration: Duration) async -> Outcome {
        var outcome = Outcome(offered: rate)
        let total = Int(Double(rate) * duration.seconds)
        var lastValue = [Bool?](repeating: nil, count: controls)
        var lastAnswered = [Int](repeating: -1, count: controls)
        var published = [Bool?](repeating: nil, count: controls)
        let firstTransaction = nextTransaction
        let started = ContinuousClock.now
        while outcome.sent < total {
            let due = min(total, Int(Double(rate) * (ContinuousClock.now - started).seconds) + 1)
            while outcome.sent < due {
                let index = outcome.sent % controls
                let value = random.next() % 2 == 0
                lastValue[index] = value
                load.publish("\(BenchNode.base)/controls/c\(index)/set", #"{"value": \#(value), "transaction": \#(nextTransaction)}"#, qos: 0)
                nextTransaction += 1
                outcome.sent += 1
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        // Collect the answers and states until all answered, or 10 s without progress.
        func wrongFinalStates() -> Int { (0..<controls).filter { lastValue[$0] != nil && published[$0] != lastValue[$0] }.count }
        var lastProgress = ContinuousClock.now
        collecting: while outcome.answered < outcome.sent || wrongFinalStates() > 0, let event = await load.next() {
            switch event {
            case .message(let message, let at):
                let parts = message.topic.split(separator: "/")
                guard parts.count >= 4, parts[3].hasPrefix("c"), let index = Int(parts[3].dropFirst()), index < controls else { continue }
                if parts.count == 5, parts[4] == "result" {
                    guard let transaction = message.transactionNumber, transaction >= firstTransaction else { continue }
                    outcome.answered += 1
                    outcome.elapsed = at - started
                    if transaction < lastAnswered[index] { outcome.reordered += 1 }
                    lastAnswered[index] = transaction
                } else if parts.count == 4, let text = message.text {
                    published[index] = text.contains(#""value":true"#)
                }
                // Progress is a message read now: one that arrived while commands were still being
                // sent (a long step) is stamped earlier than the collection began.
                lastProgress = .now
            case .tick:
                if ContinuousClock.now - lastProgress > .seconds(10) { break collecting }
            }
        }
        outcome.wrongFinalStates = wrongFinalStates()
        return outcome
    }
}
