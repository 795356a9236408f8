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
    /// How it was requested.
    var configuration: GPIOLineConfiguration { get }
    /// The line's logical value, read from the line (not a cached value).
    func value() throws -> Bool
    /// Drives an output to a logical value.
    /// - Throws: ``GPIOError`` `.wrongDirection` for an input.
    func setValue(_ value: Bool) throws
    /// The input's edges, as the kernel stamps them.
    /// - Throws: ``GPIOError`` `.wrongDirection` for an output or an input without edge detection.
    func edges() throws -> GPIOEdgeEvents
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
