#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One line per event that matters, on standard error. Under systemd (JOURNAL_STREAM set) each
/// line starts with its syslog priority (`<3>` error, `<4>` warning, `<6>` info, `<7>` debug) so
/// journald files it at that level; on a terminal it starts with the level's name.
public struct Log: Sendable {
    public enum Level: Int32, Sendable, Comparable {
        case error = 3, warning = 4, info = 6, debug = 7
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var name: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    let minimum: Level
    let journald: Bool
    private let routineLines: RoutineLimiter
    private let output: @Sendable (String) -> Void

    /// How many routine lines of one kind are written per ``routineWindow`` (``routine(_:_:)``).
    public static let routineLimit = 10
    public static let routineWindow = Duration.seconds(60)

    /// - Parameters:
    ///   - minimum: the least important level written (`.debug` with `--verbose`).
    ///   - clock: the clock that routine lines are counted on.
    ///   - output: where the lines go (standard error).
    public init(
        minimum: Level = .info, journald: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil,
        clock: some Clock<Duration> = ContinuousClock(), routineLimit: Int = Log.routineLimit, routineWindow: Duration = Log.routineWindow,
        output: @escaping @Sendable (String) -> Void = { writeLine($0, to: STDERR_FILENO) }
    ) {
        self.minimum = minimum
        self.journald = journald
        self.output = output
        routineLines = RoutineLimiter(limit: routineLimit, window: routineWindow, clock: AnyClock(clock))
    }

    /// An `info` line that comes with every command (`mqtt: porch ON performed`), of kind `key`:
    /// at most ``routineLimit`` of a kind a minute are written, and once a minute is over the
    /// next says how many were left out before it (``RoutineLines``). With `--verbose`, every one
    /// is written. Warnings and errors are never limited.
    public func routine(_ key: String, _ message: String) {
        guard minimum < .debug else { return self(.info, message) }
        guard case .write(let suppressed) = routineLines.admit(key) else { return }
        if suppressed > 0 {
            self(.info, "… \(suppressed) similar line\(suppressed == 1 ? "" : "s") (\(key)) suppressed in the last \(DurationText.format(routineLines.window)) or more; --verbose writes every one")
        }
        self(.info, message)
    }

    public func callAsFunction(_ level: Level, _ message: String) {
        guard level <= minimum else { return }
        let prefix = journald ? "<\(level.rawValue)>" : "\(level.name): "
        output(message.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n"))
    }
}
