#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// The rules of a time zone as schedules need them: how far local time is ahead of UTC at an
/// instant. The node's own zone comes from the C library (``system``), which reads `TZ` and the
/// tz database without ICU; tests inject any `TimeZone`.
public struct LocalZone: Sendable {
    /// Seconds local time is ahead of UTC at an instant.
    public let secondsFromGMT: @Sendable (Date) -> Int

    /// A zone answering with `secondsFromGMT`.
    public init(secondsFromGMT: @escaping @Sendable (Date) -> Int) { self.secondsFromGMT = secondsFromGMT }

    /// A Foundation time zone's rules.
    public init(_ timeZone: TimeZone) { self.init(secondsFromGMT: { timeZone.secondsFromGMT(for: $0) }) }

    /// The system's zone: `TZ`, else `/etc/localtime`.
    public static let system = LocalZone { instant in
        SystemCall.localOffsetFromUTC(atSecondsSince1970: Int(instant.timeIntervalSince1970.rounded(.down)))
    }
}
