#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// What the node does by itself, by id, that a person can pause and resume: the schedules and the
/// automations, which `switchboard schedule|automation pause|resume <id>`, MQTT and Home
/// Assistant reach the same way.
public protocol PausableByID: Sendable {
    /// Pauses one until resumed, across restarts; false when there is none with that id.
    func pause(_ id: String) -> Bool
    /// Resumes a paused one; false when there is none with that id.
    func resume(_ id: String) -> Bool
    /// The ids, in devices.json's order.
    var ids: [String] { get }
    /// One `status` line each, starting with its id and a colon.
    var summaries: [String] { get }
    /// Each as it stands, in devices.json's order, for MQTT and Home Assistant.
    var snapshots: [PausableSnapshot] { get }
    /// One line for each whose last run had an action refused or failed, for `status`'s warnings
    /// and `health`, until a run of it works.
    var problems: [String] { get }
    /// Rung when one was paused, resumed or ran: for whoever shows them (the MQTT bridge).
    var changed: Doorbell { get }
}

/// A schedule or an automation as it stands.
public struct PausableSnapshot: Sendable, Equatable {
    public var id: String
    public var paused: Bool
    /// A schedule's next run (nil for an automation, or while paused).
    public var next: Date?
    public var last: Date?
    /// What its last run did.
    public var outcome: String?
}

extension PausableByID {
    /// The `status` warning and `health` line of one whose last run, due at `at`, had an action
    /// refused or failed: `schedule lights-out: its run at 2026-12-15 22:30:00 UTC did not do
    /// everything: press all-off: refused: …`.
    static func refusedRunLine(_ noun: String, _ id: String, at: Date, outcome: String) -> String {
        "\(noun) \(id): its run at \(ScheduleService.format(at)) did not do everything: \(outcome)"
    }
}

extension ScheduleService: PausableByID {}
extension AutomationService: PausableByID {}
