import SwitchboardSupport
import SwitchboardGPIO
import SwitchboardConfiguration

/// Output lines passed from one configuration to the next on SIGHUP, still requested, so a relay
/// never drops out while the daemon reloads: the new configuration's ``DeviceHub`` takes the lines
/// it wants (changing their settings in place where those changed); ``releaseRest()`` gives back
/// the others.
public final class LineHandover: Sendable {
    /// What identifies an output line across configurations: where it is.
    struct Key: Hashable {
        var chip: String
        var line: GPIOLineSelector

        init(_ gpio: GPIOSettings) {
            chip = gpio.chip
            line = gpio.line
        }
    }

    private let lines: Locked<[Key: any GPIOLineRequest]>

    init(_ lines: [Key: any GPIOLineRequest]) { self.lines = Locked(lines) }

    /// No lines: a first start.
    public static var none: LineHandover { LineHandover([:]) }

    /// Takes the line at `gpio`'s chip and line, if it was handed over.
    func take(_ gpio: GPIOSettings) -> (any GPIOLineRequest)? {
        lines.withLock { $0.removeValue(forKey: Key(gpio)) }
    }

    /// Returns a line taken by a configuration that then failed to start.
    func giveBack(_ gpio: GPIOSettings, _ line: any GPIOLineRequest) {
        lines.withLock { $0[Key(gpio)] = line }
    }

    /// Takes over every line of `other`.
    func absorb(_ other: LineHandover) {
        let taken = other.takeAll()
        lines.withLock { $0.merge(taken) { _, new in new } }
    }

    /// Gives the lines nobody took back to their chips.
    public func releaseRest() {
        for line in takeAll().values { line.release() }
    }

    private func takeAll() -> [Key: any GPIOLineRequest] {
        lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }

    /// How many lines are waiting to be taken.
    public var count: Int { lines.withLock { $0.count } }
}
