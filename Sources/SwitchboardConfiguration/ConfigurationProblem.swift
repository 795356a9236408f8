/// One thing wrong with a configuration file: where (its JSON path) and what was expected.
public struct ConfigurationProblem: Sendable, Hashable, CustomStringConvertible {
    /// `devices[2].gpio.line`; empty for the file as a whole.
    public var path: String
    public var message: String

    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Every problem found in a configuration file, reported together.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, as given.
    public var file: String
    public var problems: [ConfigurationProblem]

    public init(file: String, problems: [ConfigurationProblem]) {
        self.file = file
        self.problems = problems
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return "\(file): \(count):\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
