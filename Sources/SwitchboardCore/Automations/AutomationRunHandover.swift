#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardConfiguration

/// An automation's run in progress when a reload stopped it, carried into the next
/// configuration: it goes on there (its delay's remaining time, then the steps left) if the
/// reload left the automation as it was, and stops otherwise.
public struct AutomationRunHandover: Sendable {
    /// The automation as it was.
    var settings: AutomationSettings
    var started: Date
    var why: String
    var done: [String]
    /// The step it was at: a delay being waited, or the next to run.
    var step: Int
    /// What was left of that step's delay, if it was waiting.
    var remaining: Duration?
}
