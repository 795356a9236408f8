import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A real GPIO chip through libgpiod. Owns its `gpiod_chip` handle and closes it when freed.
public final class LibgpiodChip: GPIOChip {
    // Invariant: the handle is used only under the mutex, and closed once, in deinit.
    private let handle: Locked<OpaquePointer>
    public let info: GPIOChipInfo

    /// Opens a chip by path (`/dev/gpiochip0`), name (`gpiochip0`), label (`pinctrl-bcm2835`) or number.
    /// - Throws: ``GPIOError`` `.chipNotFound` listing the chips that exist, or `.permissionDenied`.
    public init(_ descriptor: String) throws {
        let chip = try Libgpiod.openChip(descriptor)
        let name = Libgpiod.info(of: chip, path: "").name
        info = Libgpiod.info(of: chip, path: "/dev/" + name)
        handle = Locked(chip)
    }

    /// Opens the chip at a path (`/dev/gpiochip0`), and nothing else.
    /// - Throws: ``GPIOError`` `.chipNotFound` listing the chips that exist, or `.permissionDenied`.
    public convenience init(path: String) throws {
        try self.init(path)
    }

    deinit {
        handle.withLock { Libgpiod.closeChip($0) }
    }

    /// CLOCK_MONOTONIC, the clock the kernel stamps line events with.
    public var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    /// The chips on this machine.
    public static func availableChips() -> [GPIOChipInfo] { Libgpiod.availableChips() }

    public func offset(of line: GPIOLineSelector) throws -> Int {
        switch line {
        case .offset(let offset):
            guard (0..<info.lineCount).contains(offset) else {
                var error = GPIOError(.lineOutOfRange, chip: info.name, line: String(offset))
                error.validOffsets = info.lineCount > 0 ? 0...(info.lineCount - 1) : nil
                throw error
            }
            return offset
        case .name(let name):
            guard let offset = handle.withLock({ Libgpiod.offset(ofLineNamed: name, in: $0) }) else {
                throw GPIOError(.lineNotFound, chip: info.name, line: name)
            }
            return offset
        }
    }

    public func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
        let offset = try self.offset(of: line)
        let lineHandle = try handle.withLock { chip in
            let lineHandle = try Libgpiod.line(chip, offset: offset, chipName: info.name)
            try Libgpiod.request(lineHandle, configuration, chipName: info.name, lineName: line.description)
            return lineHandle
        }
        return LibgpiodLineRequest(chip: self, line: lineHandle, offset: offset, name: line.description, configuration: configuration)
    }
}

/// A line requested through libgpiod. Owns the request and releases it once, on ``release()``
/// or when freed; edges come from the line's event descriptor through a `DispatchSource`.
final class LibgpiodLineRequest: GPIOLineRequest {
    // The C line handle and the dispatch source are not Sendable; they are only touched under
    // the mutex below, so the state may cross threads with it.
    private struct State: @unchecked Sendable {
        let line: OpaquePointer
        var released = false
        var edges: GPIOEdgeEvents?
        var source: (any DispatchSourceRead)?
    }

    // Invariant: the line handle is used only under the mutex and never after `released`.
    private let state: Locked<State>
    private let chip: LibgpiodChip  // keeps the chip (and so the line handle) alive
    let offset: Int
    private let name: String
    let configuration: GPIOLineConfiguration

    init(chip: LibgpiodChip, line: OpaquePointer, offset: Int, name: String, configuration: GPIOLineConfiguration) {
        self.chip = chip
        self.state = Locked(State(line: line))
        self.offset = offset
        self.name = name
        self.configuration = configuration
        if case .input(.some) = configuration.direction {
            startEdges(descriptor: Libgpiod.eventDescriptor(of: line))
        }
    }

    deinit { release() }

    private func checked<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        try state.withLock { state in
            guard !state.released else { throw GPIOError(.released, chip: chip.info.name, line: name) }
            return try body(state.line)
        }
    }

    func value() throws -> Bool {
        try checked { try Libgpiod.value(of: $0, chipName: chip.info.name, lineName: name) }
    }

    func setValue(_ value: Bool) throws {
        guard configuration.isOutput else {
            var error = GPIOError(.wrongDirection, chip: chip.info.name, line: name)
            error.systemMessage = "it is an input and cannot be set"
            throw error
        }
        try checked { try Libgpiod.setValue(value, of: $0, chipName: chip.info.name, lineName: name) }
    }

    func edges() throws -> GPIOEdgeEvents {
        guard let edges = state.withLock({ $0.edges }) else {
            var error = GPIOError(.wrongDirection, chip: chip.info.name, line: name)
            error.systemMessage = configuration.isOutput ? "it is an output and has no edges" : "it was requested without edge detection"
            throw error
        }
        return edges
    }

    func release() {
        let source = state.withLock { state -> (any DispatchSourceRead)? in
            guard !state.released else { return nil }
            state.released = true
            let source = state.source
            state.source = nil
            // Stop reading before the descriptor is closed by the release.
            source?.cancel()
            Libgpiod.release(state.line)
            return source
        }
        _ = source
    }

    private func startEdges(descriptor original: Int32) {
        // The source watches its own duplicate, closed once cancelled: releasing the line closes
        // libgpiod's descriptor, possibly before the cancellation completes.
        let descriptor = dup(original)
        let (stream, continuation) = AsyncStream<GPIOEdgeEvent>.makeStream(bufferingPolicy: .unbounded)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "switchboard.gpio.\(chip.info.name).\(offset)"))
        let offset = self.offset
        source.setEventHandler {
            for event in Libgpiod.readEvents(from: descriptor) {
                continuation.yield(GPIOEdgeEvent(offset: offset, value: event.value, timestamp: event.timestamp))
            }
        }
        source.setCancelHandler {
            close(descriptor)
            continuation.finish()
        }
        state.withLock { state in
            state.edges = GPIOEdgeEvents(stream)
            state.source = source
        }
        source.resume()
    }
}
