import SwitchboardMQTT
import SwitchboardTesting

/// 100,000 state messages from another home system across 10 devices in one burst: each is a
/// push reload of the control bound to it. Reloads must coalesce (far fewer presentations than
/// messages) and every control's final presentation must be its device's last state.
@MainActor
struct ReloadStormBenchmark {
    struct Outcome {
        var messages: Int
        var presentations = 0
        var wrongFinalStates = 0
        var elapsed: Duration = .zero
        var cpuPerMessage: Duration = .zero
    }

    let load: MQTTLoad
    let node: BenchNode
    let devices: Int

    func run(messages: Int) async -> Outcome {
        var outcome = Outcome(messages: messages)
        var random = SeededRandom(seed: 0x570B)
        var last = [Bool](repeating: false, count: devices)
        let before = node.sample
        let started = ContinuousClock.now
        for index in 0..<messages {
            let device = index % devices
            last[device] = random.next() % 2 == 0
            load.publish("bench/remote/\(device)", last[device] ? "ON" : "OFF")
        }
        var shown = [Bool?](repeating: nil, count: devices)
        /// Takes a presentation of one of the remote devices' controls (`r<n>`); false for other messages.
        func show(_ message: MQTTMessage) -> Bool {
            guard message.topic.hasPrefix("\(BenchNode.base)/controls/r"),
                  let index = Int(message.topic.dropFirst("\(BenchNode.base)/controls/r".count)), index < devices else { return false }
            outcome.presentations += 1
            shown[index] = message.text?.contains(#""value":true"#)
            return true
        }
        func wrongFinalStates() -> Int { (0..<devices).filter { shown[$0] != last[$0] }.count }
        var lastProgress = ContinuousClock.now
        while wrongFinalStates() > 0, let event = await load.next() {
            switch event {
            case .message(let message, let at):
                if show(message) { lastProgress = at }
            case .tick:
                if ContinuousClock.now - lastProgress > .seconds(10) {
                    outcome.wrongFinalStates = wrongFinalStates()
                    return outcome
                }
            }
        }
        outcome.elapsed = ContinuousClock.now - started
        // A state may match early by chance: whatever else comes is read, and the final check
        // made, once the node has been quiet for half a second.
        for message in await load.drain(quiet: .milliseconds(500)) { _ = show(message) }
        outcome.wrongFinalStates = wrongFinalStates()
        outcome.cpuPerMessage = (node.sample.cpu - before.cpu) / messages
        return outcome
    }
}
