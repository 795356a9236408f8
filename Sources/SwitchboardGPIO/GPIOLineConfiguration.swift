/// How an output line is driven.
public enum GPIODrive: String, Sendable, Hashable, Codable, CaseIterable {
    case pushPull, openDrain, openSource
}

/// The bias (pull resistor) of a line.
public enum GPIOBias: String, Sendable, Hashable, Codable, CaseIterable {
    /// Leave the bias as it is.
    case asIs
    case disabled, pullUp, pullDown
}

/// Which edges of an input are reported.
public enum GPIOEdgeDetection: String, Sendable, Hashable, Codable, CaseIterable {
    case rising, falling, both
}

/// A line, by offset or by name (`GPIO17`).
public enum GPIOLineSelector: Sendable, Hashable, CustomStringConvertible {
    case offset(Int)
    case name(String)

    public var description: String {
        switch self {
        case .offset(let offset): String(offset)
        case .name(let name): name
        }
    }
}

/// What a line is requested for.
public enum GPIOLineDirection: Sendable, Hashable {
    /// An output driven to `initialValue` (logical) in the request itself, so a relay never glitches.
    case output(initialValue: Bool, drive: GPIODrive = .pushPull)
    /// An input, reporting `edges` if set.
    case input(edges: GPIOEdgeDetection? = nil)

    /// The edges an input reports; nil for an output or an input without edge detection.
    public var edges: GPIOEdgeDetection? {
        if case .input(let edges) = self { return edges }
        return nil
    }
}

/// A line request's settings.
public struct GPIOLineConfiguration: Sendable, Hashable {
    public var direction: GPIOLineDirection
    /// Logical value 1 is the physical low level.
    public var activeLow: Bool
    public var bias: GPIOBias
    /// The name the kernel shows as the line's consumer.
    public var consumer: String
    /// For an input with edges: the window over which the kernel debounces them, where it can
    /// (libgpiod 2.x: ``GPIOLineRequest/kernelDebounce`` says whether it does). Zero for none.
    public var debounce: Duration

    public init(_ direction: GPIOLineDirection, activeLow: Bool = false, bias: GPIOBias = .asIs, debounce: Duration = .zero, consumer: String = "switchboard") {
        self.direction = direction
        self.activeLow = activeLow
        self.bias = bias
        self.debounce = debounce
        self.consumer = consumer
    }

    /// Whether the line is an output.
    public var isOutput: Bool {
        if case .output = direction { return true }
        return false
    }
}

/// An edge on an input line: its new logical value and the kernel's timestamp.
public struct GPIOEdgeEvent: Sendable, Hashable {
    /// The line's offset on its chip.
    public var offset: Int
    /// The logical value after the edge (`true` for a rising logical edge).
    public var value: Bool
    /// When the edge happened, on the monotonic clock the events are stamped with.
    public var timestamp: Duration

    public init(offset: Int, value: Bool, timestamp: Duration) {
        self.offset = offset
        self.value = value
        self.timestamp = timestamp
    }
}

/// What a chip says of itself.
public struct GPIOChipInfo: Sendable, Hashable, CustomStringConvertible {
    /// `gpiochip0`.
    public var name: String
    /// `pinctrl-bcm2835`.
    public var label: String
    /// `/dev/gpiochip0`, or `simulated` for the simulated chip.
    public var path: String
    public var lineCount: Int

    public init(name: String, label: String, path: String, lineCount: Int) {
        self.name = name
        self.label = label
        self.path = path
        self.lineCount = lineCount
    }

    /// "gpiochip0 [pinctrl-bcm2835] (54 lines)"
    public var description: String { "\(name) [\(label)] (\(lineCount) lines)" }
}
