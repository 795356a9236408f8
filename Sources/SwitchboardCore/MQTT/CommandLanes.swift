import SwitchboardSupport

/// Every control's ``CommandLane``, made on a control's first command wherever it arrives (the
/// connection's thread, or the bridge's task), and served by tasks that ``run(perform:)`` starts
/// for each new one.
final class CommandLanes: Sendable {
    private struct NewLane: Sendable {
        let id: String
        let lane: CommandLane
    }

    // Invariant: a lane is made, recorded and announced under the lock, so two arrivals for one
    // control never make two lanes.
    private let lanes = Locked<[String: CommandLane]>([:])
    private let newLanes: AsyncStream<NewLane>
    private let newLane: AsyncStream<NewLane>.Continuation
    private let limit: Int

    /// - Parameter limit: at most this many controls get a lane; ``add(_:to:)`` refuses a further one.
    init(limit: Int) {
        self.limit = limit
        (newLanes, newLane) = AsyncStream.makeStream()
    }

    /// Queues a command in its control's lane (in place of the one waiting there, if any); false,
    /// and nothing done, when the control has no lane and no more can be made. A replaced command
    /// that no longer fits in the lane is passed to `overflow` to be answered at once.
    func add(_ command: ArrivedCommand, to id: String, overflow: (ArrivedCommand) -> Void) -> Bool {
        let lane = lanes.withLock { lanes -> CommandLane? in
            if let lane = lanes[id] { return lane }
            guard lanes.count < limit else { return nil }
            let lane = CommandLane()
            lanes[id] = lane
            newLane.yield(NewLane(id: id, lane: lane))
            return lane
        }
        guard let lane else { return false }
        if let answerNow = lane.add(command) { overflow(answerNow) }
        return true
    }

    /// Serves each lane with a task of its own until ``finish()``: one control's commands one at
    /// a time in the order they came, the ones replaced meanwhile answered together (by
    /// `supersede`) just before the command that replaced them is performed.
    func run(perform: @escaping @Sendable (ArrivedCommand, String) async -> Void, supersede: @escaping @Sendable (CommandLane.Turn, String) -> Void) async {
        await withDiscardingTaskGroup { group in
            for await new in newLanes {
                group.addTask {
                    for await _ in new.lane.doorbell {
                        let turn = new.lane.take()
                        if turn.superseded > 0 { supersede(turn, new.id) }
                        if let next = turn.next { await perform(next, new.id) }
                    }
                    let last = new.lane.take()
                    if last.superseded > 0 { supersede(last, new.id) }
                }
            }
        }
    }

    /// No more commands come: each lane's task ends once it has answered what it holds.
    func finish() {
        newLane.finish()
        let all = lanes.withLock { Array($0.values) }
        for lane in all { lane.finish() }
    }
}
