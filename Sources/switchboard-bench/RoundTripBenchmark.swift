import SwitchboardMQTT

/// Command → state round trips over MQTT: a command published on a control's set topic, the
/// line switched, the new state published. Either Switchboard (`switchboard/bench/controls/c<n>`)
/// or the floor (`floor/c<n>`), the same client measuring both.
@MainActor
struct RoundTripBenchmark {
    /// Where commands go and states come from.
    struct Target {
        let name: String
        let prefix: String
        let controls: Int

        func setTopic(_ index: Int) -> String { "\(prefix)/c\(index)/set" }
        func stateTopic(_ index: Int) -> String { "\(prefix)/c\(index)" }
        var stateFilter: String { "\(prefix)/+" }

        static func node(controls: Int) -> Target { Target(name: "switchboardd", prefix: "switchboard/bench/controls", controls: controls) }
        static func floor(controls: Int) -> Target { Target(name: "floor (C, libmosquitto)", prefix: "floor", controls: controls) }
    }

    let load: MQTTLoad
    let target: Target
    /// Each control's value now (all start off).
    var values: [Bool]
    private let indexByTopic: [String: Int]

    init(load: MQTTLoad, target: Target) {
        self.load = load
        self.target = target
        values = Array(repeating: false, count: target.controls)
        indexByTopic = Dictionary(uniqueKeysWithValues: (0..<target.controls).map { (target.stateTopic($0), $0) })
    }

    /// `total` commands with `inFlight` outstanding at once (each on its own control; every
    /// command flips its control, so every command is answered by one state message).
    /// - Returns: each command's round trip, or nil if an answer did not come within 10 s.
    mutating func run(inFlight: Int, total: Int) async -> [Duration]? {
        precondition(inFlight <= target.controls)
        var sentAt = [ContinuousClock.Instant?](repeating: nil, count: target.controls)
        var latencies: [Duration] = []
        latencies.reserveCapacity(total)
        var sent = 0
        func send(_ index: Int) {
            values[index].toggle()
            sentAt[index] = .now
            load.publish(target.setTopic(index), values[index] ? "ON" : "OFF")
            sent += 1
        }
        for index in 0..<inFlight { send(index) }
        var lastProgress = ContinuousClock.now
        while latencies.count < total, let event = await load.next() {
            switch event {
            case .message(let message, let at):
                guard let index = indexByTopic[message.topic], let start = sentAt[index] else { continue }
                sentAt[index] = nil
                latencies.append(at - start)
                lastProgress = at
                if sent < total { send(index) }
            case .tick:
                if ContinuousClock.now - lastProgress > .seconds(10) { return nil }
            }
        }
        return latencies
    }
}
