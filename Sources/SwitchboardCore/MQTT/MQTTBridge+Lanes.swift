import SwitchboardMQTT

extension MQTTBridge {
    /// At most this many controls have a command lane of their own; commands to further control
    /// ids (there are never that many placements) are handled where they arrive.
    static let maximumCommandLanes = 1_024

    /// Reads the incoming messages until the connection's stream ends. Commands (`…/set`) go to a
    /// lane per control: one control's commands run one at a time in the order they came, while
    /// other controls' commands, and every other message — the state topics that confirm a
    /// command above all — are handled at once, never queued behind a command that waits for them.
    func serveIncoming() async {
        await withDiscardingTaskGroup { group in
            var lanes: [String: AsyncStream<MQTTMessage>.Continuation] = [:]
            for await message in connection.messages {
                defer { memoryRelease.note() }
                guard let id = topics.controlID(in: message.topic, suffix: "set") else {
                    await handle(message)
                    continue
                }
                if let lane = lanes[id] {
                    lane.yield(message)
                } else if lanes.count < Self.maximumCommandLanes {
                    let (commands, lane) = AsyncStream<MQTTMessage>.makeStream()
                    lanes[id] = lane
                    group.addTask {
                        for await command in commands { await self.handleCommand(command, id: id) }
                    }
                    lane.yield(message)
                } else {
                    await handleCommand(message, id: id)
                }
            }
            for lane in lanes.values { lane.finish() }
        }
    }
}
