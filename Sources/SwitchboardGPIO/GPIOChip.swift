/// A GPIO chip: the real one through libgpiod, or the simulated one.
public protocol GPIOChip: AnyObject, Sendable {
    /// The chip's name, label, path and line count.
    var info: GPIOChipInfo { get }
    /// Now, on the clock that edge timestamps are taken from (CLOCK_MONOTONIC for the kernel).
    var now: Duration { get }
    /// The offset of a line given by offset or name.
    /// - Throws: ``GPIOError`` `.lineOutOfRange` or `.lineNotFound`.
    func offset(of line: GPIOLineSelector) throws -> Int
    /// Requests a line. Nothing stays requested if this throws.
    /// - Throws: ``GPIOError``: out of range, not found, busy, permission denied.
    func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest
}

/// A requested line. Released on ``release()`` or when the request is freed. What a released
/// output does is up to the chip's driver (a Raspberry Pi's keeps the level, `gpio-sim` falls back
/// to the pull); Switchboard never relies on either.
public protocol GPIOLineRequest: AnyObject, Sendable {
    /// The line's offset.
    var offset: Int { get }
    /// How it is requested now.
    var configuration: GPIOLineConfiguration { get }
    /// The window over which the kernel debounces this input's edges: the configuration's
    /// `debounce` where the kernel does it (libgpiod 2.x), zero where it does not (libgpiod 1.x,
    /// the simulated chip), and then ``DebouncedInput`` debounces in software.
    var kernelDebounce: Duration { get }
    /// The line's logical value, read from the line (not a cached value).
    func value() throws -> Bool
    /// Drives an output to a logical value.
    /// - Throws: ``GPIOError`` `.wrongDirection` for an input.
    func setValue(_ value: Bool) throws
    /// The input's edges, as the kernel stamps them.
    /// - Throws: ``GPIOError`` `.wrongDirection` for an output or an input without edge detection.
    func edges() throws -> GPIOEdgeEvents
    /// Changes the line's settings (direction, value, active-low, bias, drive) without releasing
    /// it, so nothing else can take it and an output does not glitch. Edge detection stays as
    /// requested.
    /// - Returns: false where the change cannot be made in place (libgpiod 1.x cannot change a
    ///   line requested for edges; edge detection itself never changes): release and request again.
    func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool
    /// Gives the line back.
    func release()
}

/// Edges of an input line as an `AsyncSequence`. Iterate it from one task.
public struct GPIOEdgeEvents: AsyncSequence, Sendable {
    public typealias Element = GPIOEdgeEvent
    let stream: AsyncStream<GPIOEdgeEvent>

    public init(_ stream: AsyncStream<GPIOEdgeEvent>) { self.stream = stream }

    public func makeAsyncIterator() -> AsyncStream<GPIOEdgeEvent>.AsyncIterator { stream.makeAsyncIterator() }
}
