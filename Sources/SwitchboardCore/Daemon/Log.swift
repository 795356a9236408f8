import SwitchboardSupport
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

    public init(minimum: Level = .info, journald: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil) {
        self.minimum = minimum
        self.journald = journald
    }

    public func callAsFunction(_ level: Level, _ message: String) {
        guard level <= minimum else { return }
        let prefix = journald ? "<\(level.rawValue)>" : "\(level.name): "
        writeLine(message.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n"), to: STDERR_FILENO)
    }
}
