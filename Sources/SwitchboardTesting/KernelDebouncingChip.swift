import SwitchboardGPIO
import SwitchboardSupport

/// A ``SimulatedGPIOChip`` as libgpiod 2.x presents a chip: an input requested with a debounce
/// window says the kernel debounces it (``GPIOLineRequest/kernelDebounce`` is that window), so
/// ``DebouncedInput`` hands its edges on as they come. Every request's line and configuration is
/// recorded. The edges themselves are the simulated chip's, not debounced: drive settled levels.
public final class KernelDebouncingChip: GPIOChip {
    /// A line requested, and how.
    public struct Request: Sendable, Hashable {
        public var line: GPIOLineSelector
        public var configuration: GPIOLineConfiguration

        public init(line: GPIOLineSelector, configuration: GPIOLineConfiguration) {
            self.line = line
            self.configuration = configuration
        }
    }

    /// The chip whose lines are requested: drive its inputs, read its levels.
    public let simulated: SimulatedGPIOChip
    private let recorded = Locked<[Request]>([])

    public init(_ simulated: SimulatedGPIOChip) { self.simulated = simulated }

    /// Every request made, in order.
    public var requests: [Request] { recorded.withLock { $0 } }

    public var info: GPIOChipInfo { simulated.info }
    public var now: Duration { simulated.now }
    public func offset(of line: GPIOLineSelector) throws -> Int { try simulated.offset(of: line) }

    public func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
        let request = try simulated.request(line, configuration)
        recorded.withLock { $0.append(Request(line: line, configuration: configuration)) }
        return KernelDebouncedRequest(request)
    }
}

/// A simulated line whose edges the kernel is said to debounce.
final class KernelDebouncedRequest: GPIOLineRequest {
    private let base: any GPIOLineRequest

    init(_ base: any GPIOLineRequest) { self.base = base }

    var offset: Int { base.offset }
    var configuration: GPIOLineConfiguration { base.configuration }
    var kernelDebounce: Duration { configuration.direction.edges == nil ? .zero : configuration.debounce }
    func value() throws -> Bool { try base.value() }
    func setValue(_ value: Bool) throws { try base.setValue(value) }
    func edges() throws -> GPIOEdgeEvents { try base.edges() }
    func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool { try base.reconfigure(configuration) }
    func release() { base.release() }
}
