/// What the node does by itself, by id, that a person can pause and resume: the schedules and the
/// automations, which `switchboard schedule|automation pause|resume <id>` reach the same way.
public protocol PausableByID: Sendable {
    /// Pauses one until resumed, across restarts; false when there is none with that id.
    func pause(_ id: String) -> Bool
    /// Resumes a paused one; false when there is none with that id.
    func resume(_ id: String) -> Bool
    /// The ids, in devices.json's order.
    var ids: [String] { get }
    /// One `status` line each, starting with its id and a colon.
    var summaries: [String] { get }
}

extension ScheduleService: PausableByID {}
extension AutomationService: PausableByID {}
