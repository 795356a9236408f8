/// A schedule's last run as the state file keeps it: when it was due and what it did.
public struct ScheduleRunRecord: Sendable, Codable, Equatable {
    /// The instant it was due, in seconds since 1970 (wall clock: it outlives a reboot).
    public var at: Double
    /// What its actions did: `on porch: performed (On)`, or why one was refused.
    public var outcome: String
    /// Whether an action of that run was refused or failed (nil in records of older versions).
    public var refused: Bool?

    public init(at: Double, outcome: String, refused: Bool? = nil) {
        self.at = at
        self.outcome = outcome
        self.refused = refused
    }
}
