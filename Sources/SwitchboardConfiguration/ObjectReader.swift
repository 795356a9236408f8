import SwitchboardGPIO
import SwitchboardSupport

/// Reads one JSON object's members, recording a problem for every missing, mistyped or unknown
/// member instead of stopping at the first.
struct ObjectReader {
    let path: String
    private let members: [(key: String, value: JSONValue)]
    /// The keys asked for, in the order asked: the keys this object may have.
    private var used: [String] = []

    /// A reader for `value` at `path`, or nil (with a problem recorded) if it is not an object.
    init?(_ value: JSONValue, at path: String, problems: inout [ConfigurationProblem]) {
        guard case .object(let members) = value else {
            problems.append(ConfigurationProblem(path, "expected an object, found \(value.kindDescription)"))
            return nil
        }
        self.path = path
        self.members = members
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// A member's value, marking the key as known.
    mutating func value(_ key: String) -> JSONValue? {
        if !used.contains(key) { used.append(key) }
        return members.first { $0.key == key }?.value
    }

    mutating func string(_ key: String, required: Bool = false, _ problems: inout [ConfigurationProblem]) -> String? {
        switch value(key) {
        case nil, .null?:
            if required { problems.append(ConfigurationProblem(child(key), "is required (a string)")) }
            return nil
        case .string(let text)?:
            if required && text.isEmpty { problems.append(ConfigurationProblem(child(key), "must not be empty")) }
            return text
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected a string, found \(other.kindDescription)"))
            return nil
        }
    }

    mutating func bool(_ key: String, default fallback: Bool, _ problems: inout [ConfigurationProblem]) -> Bool {
        switch value(key) {
        case nil, .null?: return fallback
        case .bool(let flag)?: return flag
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected true or false, found \(other.kindDescription)"))
            return fallback
        }
    }

    mutating func int(_ key: String, in range: ClosedRange<Int>, default fallback: Int?, _ problems: inout [ConfigurationProblem]) -> Int? {
        switch value(key) {
        case nil, .null?:
            if fallback == nil { problems.append(ConfigurationProblem(child(key), "is required (a whole number)")) }
            return fallback
        case .number(let number)? where number == number.rounded() && range.contains(Int(exactly: number) ?? Int.min):
            return Int(number)
        case .number(let number)?:
            problems.append(ConfigurationProblem(child(key), "\(JSONValue.number(number).compactText) is not a whole number in \(range.lowerBound)…\(range.upperBound)"))
            return fallback
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected a whole number, found \(other.kindDescription)"))
            return fallback
        }
    }

    /// A duration; `range` says what is allowed (by default anything longer than zero).
    mutating func duration(_ key: String, in range: ClosedRange<Duration>? = nil, default fallback: Duration?, _ problems: inout [ConfigurationProblem]) -> Duration? {
        switch value(key) {
        case nil, .null?: return fallback
        case .string(let text)?:
            guard let duration = DurationText.parse(text) else {
                problems.append(ConfigurationProblem(child(key), "\"\(text)\" is not a duration: write it like \"500ms\", \"20s\", \"10m\" or \"1h\""))
                return fallback
            }
            if let range, !range.contains(duration) {
                problems.append(ConfigurationProblem(child(key), "\(text) is outside what is allowed: from \(DurationText.format(range.lowerBound)) to \(DurationText.format(range.upperBound))"))
                return fallback
            }
            guard range != nil || duration > .zero else {
                problems.append(ConfigurationProblem(child(key), "\(text) is no time at all: give a duration longer than zero, like \"500ms\""))
                return fallback
            }
            return duration
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected a duration such as \"500ms\", found \(other.kindDescription)"))
            return fallback
        }
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, default fallback: T?, required: Bool = true, _ problems: inout [ConfigurationProblem]) -> T? where T.RawValue == String {
        let choices = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        switch value(key) {
        case nil, .null?:
            if fallback == nil && required { problems.append(ConfigurationProblem(child(key), "is required (one of \(choices))")) }
            return fallback
        case .string(let text)?:
            guard let choice = T(rawValue: text) else {
                problems.append(ConfigurationProblem(child(key), "\"\(text)\" is not one of \(choices)"))
                return fallback
            }
            return choice
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected one of \(choices), found \(other.kindDescription)"))
            return fallback
        }
    }

    mutating func array(_ key: String, _ problems: inout [ConfigurationProblem]) -> [JSONValue] {
        switch value(key) {
        case nil, .null?: return []
        case .array(let elements)?: return elements
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected an array, found \(other.kindDescription)"))
            return []
        }
    }

    mutating func strings(_ key: String, _ problems: inout [ConfigurationProblem]) -> [String] {
        array(key, &problems).enumerated().compactMap { index, element in
            guard case .string(let text) = element else {
                problems.append(ConfigurationProblem("\(child(key))[\(index)]", "expected a string, found \(element.kindDescription)"))
                return nil
            }
            return text
        }
    }

    /// A line given as an offset or a name.
    mutating func line(_ key: String, _ problems: inout [ConfigurationProblem]) -> GPIOLineSelector? {
        switch value(key) {
        case nil, .null?:
            problems.append(ConfigurationProblem(child(key), "is required (a line offset such as 17, or a line name such as \"GPIO17\")"))
            return nil
        case .number(let number)? where number >= 0 && number == number.rounded() && number < 100_000:
            return .offset(Int(number))
        case .string(let name)? where !name.isEmpty:
            return .name(name)
        case let other?:
            problems.append(ConfigurationProblem(child(key), "expected a line offset (0 or more) or a line name, found \(other.compactText)"))
            return nil
        }
    }

    /// Records every member this reader did not ask for (keys starting with "//" are comments).
    func finish(_ problems: inout [ConfigurationProblem]) {
        // By name: JSON's decoder does not keep the order members were written in.
        for member in members.sorted(by: { $0.key < $1.key }) where !used.contains(member.key) && member.key != "$schema" && !member.key.hasPrefix("//") {
            problems.append(ConfigurationProblem(child(member.key), "is not a known key here; expected one of \(used.joined(separator: ", "))"))
        }
    }
}

extension JSONValue {
    /// A short rendering for messages: `99`, `"attic"`, `an object`.
    var compactText: String {
        switch self {
        case .number(let number): JSONValue.integer(number).map(String.init) ?? String(number)
        case .string(let text): "\"\(text)\""
        case .bool(let flag): String(flag)
        default: kindDescription
        }
    }
}
