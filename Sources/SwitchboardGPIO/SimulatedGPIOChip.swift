import SwitchboardSupport

/// A GPIO chip in memory, behind the same ``GPIOChip`` protocol as the real one: named lines,
/// requests and busy lines, active-low, bias, and edges on inputs stamped by an injected clock.
/// `switchboardd --simulate` runs on it where a machine has no GPIO, and tests drive it.
///
/// Inputs are driven from outside with ``drive(_:high:)`` (a button, a wire). A line nobody drives
/// sits at its pull: pull-down until a request sets a bias, and the last bias requested after that.
/// As with the kernel's `gpio-sim` driver, a released output falls back to its pull: what a
/// released line does is up to a chip's driver, so Switchboard never relies on it.
public final class SimulatedGPIOChip: GPIOChip {
    struct Line {
        var name: String?
        /// The level someone outside drives the line to, if any.
        var external: Bool?
        /// The level of the line's pull resistor: the last bias requested (pull-down at first).
        var pull = false
        /// The level the line is at now.
        var physical = false
        var request: Request?
    }

    struct Request {
        let id: Int
        var configuration: GPIOLineConfiguration
        /// The logical value an output is driven to.
        var driven = false
        var continuation: AsyncStream<GPIOEdgeEvent>.Continuation?
        var edges: GPIOEdgeEvents?
    }

    struct State {
        var lines: [Line]
        var nextRequest = 0
    }

    // Invariant: all line state is behind the mutex; stream continuations are yielded to
    // under it (yielding never blocks).
    private let state: Locked<State>
    private let clock: AnyClock
    public let info: GPIOChipInfo

    /// A chip with one line per name (nil for an unnamed line).
    public init(name: String = "gpiochip0", label: String = "switchboard-sim", lineNames: [String?], clock: some Clock<Duration> = ContinuousClock()) {
        state = Locked(State(lines: lineNames.map { Line(name: $0) }))
        self.clock = AnyClock(clock)
        info = GPIOChipInfo(name: name, label: label, path: "simulated", lineCount: lineNames.count)
    }

    /// A chip of `lineCount` lines named `GPIO0`, `GPIO1`, … as on a Raspberry Pi's header.
    public convenience init(name: String = "gpiochip0", label: String = "switchboard-sim", lineCount: Int = 54, clock: some Clock<Duration> = ContinuousClock()) {
        self.init(name: name, label: label, lineNames: (0..<lineCount).map { "GPIO\($0)" }, clock: clock)
    }

    public var now: Duration { clock.now.offset }

    public func offset(of line: GPIOLineSelector) throws -> Int {
        try state.withLock { try resolve(line, in: $0) }
    }

    private func resolve(_ line: GPIOLineSelector, in state: State) throws -> Int {
        switch line {
        case .offset(let offset):
            guard state.lines.indices.contains(offset) else {
                var error = GPIOError(.lineOutOfRange, chip: info.name, line: String(offset))
                error.validOffsets = state.lines.isEmpty ? nil : 0...(state.lines.count - 1)
                throw error
            }
            return offset
        case .name(let name):
            guard let offset = state.lines.firstIndex(where: { $0.name == name }) else {
                throw GPIOError(.lineNotFound, chip: info.name, line: name)
            }
            return offset
        }
    }

    public func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
        let now = clock.now.offset
        let (offset, id) = try state.withLock { state -> (Int, Int) in
            let offset = try resolve(line, in: state)
            if let holder = state.lines[offset].request {
                var error = GPIOError(.lineBusy, chip: info.name, line: line.description)
                error.consumer = holder.configuration.consumer
                throw error
            }
            state.nextRequest += 1
            var request = Request(id: state.nextRequest, configuration: configuration)
            switch configuration.direction {
            case .output(let initialValue, _):
                request.driven = initialValue
            case .input:
                break
            }
            state.lines[offset].request = request
            Self.applyBias(configuration.bias, to: offset, in: &state)
            // The request applies its bias and initial value; that is no edge.
            Self.settle(offset, in: &state, at: now)
            if case .input(.some) = configuration.direction {
                let (stream, continuation) = AsyncStream<GPIOEdgeEvent>.makeStream(bufferingPolicy: .unbounded)
                state.lines[offset].request?.continuation = continuation
                state.lines[offset].request?.edges = GPIOEdgeEvents(stream)
            }
            return (offset, request.id)
        }
        return SimulatedLineRequest(chip: self, offset: offset, id: id, name: line.description, configuration: configuration)
    }

    /// Drives a line from outside to a physical level, as a button or a wire would; an input
    /// requested with edge detection reports the edge.
    public func drive(_ line: GPIOLineSelector, high: Bool) throws {
        let now = clock.now.offset
        try state.withLock { state in
            let offset = try resolve(line, in: state)
            state.lines[offset].external = high
            Self.settle(offset, in: &state, at: now)
        }
    }

    /// Stops driving a line from outside: it falls back to its pull.
    public func undrive(_ line: GPIOLineSelector) throws {
        let now = clock.now.offset
        try state.withLock { state in
            let offset = try resolve(line, in: state)
            state.lines[offset].external = nil
            Self.settle(offset, in: &state, at: now)
        }
    }

    /// A line's physical level now: what a meter on the pin would read.
    public func physicalLevel(_ line: GPIOLineSelector) throws -> Bool {
        try state.withLock { state in state.lines[try resolve(line, in: state)].physical }
    }

    /// Who holds a line, if anyone.
    public func consumer(of line: GPIOLineSelector) throws -> String? {
        try state.withLock { state in state.lines[try resolve(line, in: state)].request?.configuration.consumer }
    }

    private static func applyBias(_ bias: GPIOBias, to offset: Int, in state: inout State) {
        switch bias {
        case .pullUp: state.lines[offset].pull = true
        case .pullDown: state.lines[offset].pull = false
        case .asIs, .disabled: break
        }
    }

    /// Recomputes a line's physical level and reports an edge if an edge-detecting input changed.
    private static func settle(_ offset: Int, in state: inout State, at now: Duration) {
        let line = state.lines[offset]
        let previous = line.physical
        let level = if let request = line.request, request.configuration.isOutput {
            request.driven != request.configuration.activeLow
        } else {
            line.external ?? line.pull
        }
        state.lines[offset].physical = level
        guard level != previous, let request = line.request, case .input(let edges?) = request.configuration.direction else { return }
        let logical = level != request.configuration.activeLow
        let reported = switch edges {
        case .both: true
        case .rising: logical
        case .falling: !logical
        }
        if reported { request.continuation?.yield(GPIOEdgeEvent(offset: offset, value: logical, timestamp: now)) }
    }

    // MARK: Requests

    fileprivate func value(offset: Int, id: Int) throws -> Bool {
        try state.withLock { state in
            let request = try current(offset, id, in: state)
            return state.lines[offset].physical != request.configuration.activeLow
        }
    }

    fileprivate func setValue(_ value: Bool, offset: Int, id: Int, name: String) throws {
        let now = clock.now.offset
        try state.withLock { state in
            let request = try current(offset, id, in: state)
            guard request.configuration.isOutput else {
                var error = GPIOError(.wrongDirection, chip: info.name, line: name)
                error.systemMessage = "it is an input and cannot be set"
                throw error
            }
            state.lines[offset].request?.driven = value
            Self.settle(offset, in: &state, at: now)
        }
    }

    fileprivate func configuration(offset: Int, id: Int) -> GPIOLineConfiguration? {
        state.withLock { state in state.lines[offset].request.flatMap { $0.id == id ? $0.configuration : nil } }
    }

    fileprivate func reconfigure(_ configuration: GPIOLineConfiguration, offset: Int, id: Int) throws -> Bool {
        let now = clock.now.offset
        return try state.withLock { state in
            let request = try current(offset, id, in: state)
            guard request.configuration.direction.edges == configuration.direction.edges else { return false }
            state.lines[offset].request?.configuration = configuration
            if case .output(let initialValue, _) = configuration.direction { state.lines[offset].request?.driven = initialValue }
            Self.applyBias(configuration.bias, to: offset, in: &state)
            Self.settle(offset, in: &state, at: now)
            return true
        }
    }

    fileprivate func edges(offset: Int, id: Int, name: String) throws -> GPIOEdgeEvents {
        try state.withLock { state in
            let request = try current(offset, id, in: state)
            guard let edges = request.edges else {
                var error = GPIOError(.wrongDirection, chip: info.name, line: name)
                error.systemMessage = request.configuration.isOutput ? "it is an output and has no edges" : "it was requested without edge detection"
                throw error
            }
            return edges
        }
    }

    fileprivate func release(offset: Int, id: Int) {
        let now = clock.now.offset
        state.withLock { state in
            guard state.lines[offset].request?.id == id else { return }
            state.lines[offset].request?.continuation?.finish()
            state.lines[offset].request = nil
            Self.settle(offset, in: &state, at: now)
        }
    }

    private func current(_ offset: Int, _ id: Int, in state: State) throws -> Request {
        guard let request = state.lines[offset].request, request.id == id else {
            throw GPIOError(.released, chip: info.name, line: String(offset))
        }
        return request
    }
}

/// A line requested from the simulated chip.
final class SimulatedLineRequest: GPIOLineRequest {
    private let chip: SimulatedGPIOChip
    private let id: Int
    private let name: String
    private let requested: GPIOLineConfiguration
    let offset: Int

    init(chip: SimulatedGPIOChip, offset: Int, id: Int, name: String, configuration: GPIOLineConfiguration) {
        self.chip = chip
        self.offset = offset
        self.id = id
        self.name = name
        self.requested = configuration
    }

    var configuration: GPIOLineConfiguration { chip.configuration(offset: offset, id: id) ?? requested }
    /// The simulated chip does not debounce: ``DebouncedInput`` does, in software.
    var kernelDebounce: Duration { .zero }

    deinit { release() }

    func value() throws -> Bool { try chip.value(offset: offset, id: id) }
    func setValue(_ value: Bool) throws { try chip.setValue(value, offset: offset, id: id, name: name) }
    func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool { try chip.reconfigure(configuration, offset: offset, id: id) }
    func edges() throws -> GPIOEdgeEvents { try chip.edges(offset: offset, id: id, name: name) }
    func release() { chip.release(offset: offset, id: id) }
}
