#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A line requested through libgpiod. Owns the request and releases it once, on ``release()``
/// or when freed; edges are read when the request's descriptor becomes readable (on the
/// process's descriptor loop, ``EventLoop/shared``), so an idle line costs nothing.
final class LibgpiodLineRequest: GPIOLineRequest {
    // The C line handle is not Sendable; it is only touched under the mutex below, so the state
    // may cross threads with it.
    private struct State: @unchecked Sendable {
        let line: OpaquePointer
        var configuration: GPIOLineConfiguration
        var released = false
        var edges: GPIOEdgeEvents?
        var watch: DescriptorWatch?
    }

    // Invariant: the line handle is used only under the mutex and never after `released`.
    private let state: Locked<State>
    private let chip: LibgpiodChip  // keeps the chip open while the line is requested
    let offset: Int
    private let name: String

    init(chip: LibgpiodChip, line: OpaquePointer, offset: Int, name: String, configuration: GPIOLineConfiguration) {
        self.chip = chip
        self.state = Locked(State(line: line, configuration: configuration))
        self.offset = offset
        self.name = name
        if case .input(.some) = configuration.direction {
            startEdges(descriptor: Libgpiod.eventDescriptor(of: line))
        }
    }

    deinit { release() }

    var configuration: GPIOLineConfiguration { state.withLock { $0.configuration } }

    var kernelDebounce: Duration {
        state.withLock { state in
            guard LibgpiodChip.supportsKernelDebounce, case .input(.some) = state.configuration.direction else { return .zero }
            return state.configuration.debounce
        }
    }

    private func checked<T>(_ body: (inout State) throws -> T) throws -> T {
        try state.withLock { state in
            guard !state.released else { throw GPIOError(.released, chip: chip.info.name, line: name) }
            return try body(&state)
        }
    }

    func value() throws -> Bool {
        try checked { try Libgpiod.value(of: $0.line, chipName: chip.info.name, lineName: name) }
    }

    func setValue(_ value: Bool) throws {
        try checked { state in
            guard state.configuration.isOutput else {
                var error = GPIOError(.wrongDirection, chip: chip.info.name, line: name)
                error.systemMessage = "it is an input and cannot be set"
                throw error
            }
            try Libgpiod.setValue(value, of: state.line, chipName: chip.info.name, lineName: name)
        }
    }

    func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool {
        try checked { state in
            // Edge detection and its reader are fixed for the life of a request.
            guard configuration.direction.edges == state.configuration.direction.edges else { return false }
            guard try Libgpiod.reconfigure(state.line, configuration, chipName: chip.info.name, lineName: name) else { return false }
            state.configuration = configuration
            return true
        }
    }

    func edges() throws -> GPIOEdgeEvents {
        try checked { state in
            guard let edges = state.edges else {
                var error = GPIOError(.wrongDirection, chip: chip.info.name, line: name)
                error.systemMessage = state.configuration.isOutput ? "it is an output and has no edges" : "it was requested without edge detection"
                throw error
            }
            return edges
        }
    }

    func release() {
        state.withLock { state in
            guard !state.released else { return }
            state.released = true
            // Stop reading before the descriptor is closed by the release.
            state.watch?.cancel()
            state.watch = nil
            Libgpiod.release(state.line)
        }
    }

    private func startEdges(descriptor original: Int32) {
        // The watch is on its own duplicate, closed once cancelled: releasing the line closes
        // libgpiod's descriptor, possibly before the cancellation ran.
        guard let loop = EventLoop.shared, let descriptor = try? SystemCall.duplicate(original) else { return }
        let (stream, continuation) = AsyncStream<GPIOEdgeEvent>.makeStream(bufferingPolicy: .unbounded)
        let offset = self.offset
        let watch = loop.watch(descriptor, readable: { [state] _ in
            let events = state.withLock { state in
                state.released ? [] : Libgpiod.readEvents(from: state.line)
            }
            for event in events {
                continuation.yield(GPIOEdgeEvent(offset: offset, value: event.value, timestamp: event.timestamp))
            }
        }, cancelled: {
            SystemCall.close(descriptor)
            continuation.finish()
        })
        state.withLock { state in
            state.edges = GPIOEdgeEvents(stream)
            state.watch = watch
        }
    }
}
