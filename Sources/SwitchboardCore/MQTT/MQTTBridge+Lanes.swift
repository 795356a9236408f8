import SwitchboardMQTT
import SwitchboardSupport

/// A well-formed command from MQTT as it arrived: when, and whether the node was locked then.
struct ArrivedCommand: Sendable {
    let command: CommandPayload
    let at: OffsetInstant
    let locked: Bool
}

extension MQTTBridge {
    /// At most this many controls have a command lane of their own; commands to further control
    /// ids (there are never that many placements) are handled where they arrive.
    static let maximumCommandLanes = 1_024

    /// Reads the incoming messages until the connection's stream ends. Commands (`…/set`) go to a
    /// lane per control: one control's commands run one at a time in the order they came, while
    /// other controls' commands, and every other message — the state topics that confirm a
    /// command above all — are handled at once, never queued behind a command that waits for them.
    /// In a lane only the newest command waits: one it replaces is answered `superseded`, so a
    /// flood of commands to a control costs one waiting command, not a queue. A control's answers
    /// go out in the order its commands came: a replaced command is answered once the command
    /// before it has been, just before the one that replaced it is performed.
    func serveIncoming() async {
        await withDiscardingTaskGroup { group in
            var lanes: [String: CommandLane] = [:]
            for await message in connection.messages {
                defer { memoryRelease.note() }
                guard !message.isOversized else {
                    reject(message, CommandPayload.Rejection.tooLarge.rawValue)
                    continue
                }
                guard let id = topics.controlID(in: message.topic, suffix: "set") else {
                    await handle(message)
                    continue
                }
                // Checked as it arrives, so that every bad one is answered; the lock and the clock
                // are read then too: what arrived while locked stays refused, and a command that
                // waits too long is dropped.
                guard let parsed = checkedCommand(message) else { continue }
                let command = ArrivedCommand(command: parsed, at: runtime.clock.now, locked: runtime.center.isLockedNow)
                if let lane = lanes[id] {
                    lane.add(command)
                } else if lanes.count < Self.maximumCommandLanes {
                    let (commands, lane) = CommandLane.make()
                    lanes[id] = lane
                    group.addTask {
                        for await command in commands {
                            for replaced in lane.takeReplaced() { self.supersede(replaced, id: id) }
                            await self.handleCommand(command, id: id)
                        }
                        for replaced in lane.takeReplaced() { self.supersede(replaced, id: id) }
                    }
                    lane.add(command)
                } else {
                    await handleCommand(command, id: id)
                }
            }
            for lane in lanes.values { lane.finish() }
        }
    }
}
