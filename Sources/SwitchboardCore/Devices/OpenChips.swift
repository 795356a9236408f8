import SwitchboardGPIO
import SwitchboardConfiguration

/// The chips devices.json names, open (or simulated), by chip id, with where each was found
/// (``GPIOChipLocation``): what switchboardd runs on, and what `switchboard check` opens to
/// check a devices.json the same way.
public struct OpenChips: Sendable {
    /// The open chips, by chip id.
    public var chips: [String: any GPIOChip] = [:]
    /// Which chip each is and why, by chip id.
    public var locations: [String: GPIOChipLocation] = [:]

    public init() {}

    /// Opens the chips of `configuration` that are not open yet, in devices.json's order, each
    /// with ``ChipSettings/open(simulate:)``. A chip id already open is kept; one whose `chip`
    /// changed is a problem, as its lines would be handed over on the old chip: that takes a restart.
    /// - Parameter opened: called with each newly opened chip's place in devices.json
    ///   (`chips[0].chip`) and which chip it is, for the log or the terminal.
    /// - Returns: one problem for each chip that could not be opened or that moved; none when
    ///   every chip is open. The lines are not checked here (``ConfigurationLoader/validateLines(_:chips:locations:file:)``).
    public mutating func open(
        _ configuration: SwitchboardConfiguration, simulate: Bool,
        opened: (_ path: String, _ location: GPIOChipLocation) -> Void
    ) -> [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        for settings in configuration.chips {
            let path = "chips[\(settings.position)].chip"
            if let running = locations[settings.id] {
                if running.descriptor != settings.chip {
                    problems.append(ConfigurationProblem(path, "\"\(settings.id)\" moved from \"\(running.descriptor)\" to \"\(settings.chip)\"; a reload keeps the running chips: restart switchboardd to use another chip"))
                }
                continue
            }
            do {
                let (chip, location) = try settings.open(simulate: simulate)
                chips[settings.id] = chip
                locations[settings.id] = location
                opened(path, location)
            } catch {
                problems.append(ConfigurationProblem(path, String(describing: error)))
            }
        }
        return problems
    }
}
