import SwitchboardSupport
/// When a schedule fires: a moment of the day (a wall-clock time, sunrise or sunset), moved by
/// an offset, on some days of the week.
public struct ScheduleRule: Sendable, Equatable {
    /// The moment of the day a schedule is anchored to.
    public enum Moment: Sendable, Equatable, CustomStringConvertible {
        /// A local wall-clock time, `HH:MM` or `HH:MM:SS`.
        case time(hour: Int, minute: Int, second: Int = 0)
        case sunrise
        case sunset

        /// `07:30`, `07:30:15`, `sunrise` or `sunset`, or nil.
        public init?(_ text: String) {
            switch text {
            case "sunrise": self = .sunrise
            case "sunset": self = .sunset
            default:
                let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
                      let hour = Int(parts[0]), let minute = Int(parts[1]), let second = parts.count == 3 ? Int(parts[2]) : 0,
                      (0..<24).contains(hour), (0..<60).contains(minute), (0..<60).contains(second) else { return nil }
                self = .time(hour: hour, minute: minute, second: second)
            }
        }

        public var description: String {
            switch self {
            case .time(let hour, let minute, let second):
                func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
                return "\(two(hour)):\(two(minute))" + (second == 0 ? "" : ":\(two(second))")
            case .sunrise: return "sunrise"
            case .sunset: return "sunset"
            }
        }

        /// Whether the moment needs the node's latitude and longitude.
        public var isSolar: Bool { self == .sunrise || self == .sunset }
    }

    public var moment: Moment
    /// Added to the moment (`-15m`, `+30m`); at most 12 hours either way.
    public var offset: Duration
    /// The days (of the moment, before the offset) on which it fires; empty for every day.
    public var days: Set<Weekday>

    public init(_ moment: Moment, offset: Duration = .zero, days: Set<Weekday> = []) {
        self.moment = moment
        self.offset = offset
        self.days = days
    }

    /// The longest offset a rule takes either way.
    public static let offsetLimit = Duration.seconds(12 * 3600)

    /// An offset as devices.json writes it: `+30m`, `-15m`, `1h` (a duration with an optional
    /// sign), or nil.
    public static func offset(_ text: String) -> Duration? {
        var rest = Substring(text)
        var sign: Int64 = 1
        if rest.first == "-" { sign = -1; rest = rest.dropFirst() } else if rest.first == "+" { rest = rest.dropFirst() }
        guard let duration = DurationText.parse(String(rest)), duration <= offsetLimit else { return nil }
        return duration * sign
    }

    /// The rule as text: `sunset -15m on mon, tue`.
    public var summary: String {
        var text = moment.description
        if offset != .zero {
            text += offset < .zero ? " -\(DurationText.format(.zero - offset))" : " +\(DurationText.format(offset))"
        }
        if !days.isEmpty { text += " on " + days.sorted().map(\.rawValue).joined(separator: ", ") }
        return text
    }
}
