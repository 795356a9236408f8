/// A `Clock` that erases the concrete clock it wraps, so that long-lived services can hold one
/// stored clock (the system's `ContinuousClock` in production, a manual clock in tests) without
/// becoming generic.
///
/// Instants are measured as offsets from the moment the wrapper was created.
public struct AnyClock: Clock, Sendable {
    /// A point in time on an ``AnyClock``: the offset from the clock's origin.
    public typealias Instant = OffsetInstant

    private let nowOffset: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void
    public let minimumResolution: Duration

    /// Wraps `base`; the new clock's origin is `base.now`.
    public init<C: Clock>(_ base: C) where C.Duration == Duration {
        let origin = base.now
        nowOffset = { origin.duration(to: base.now) }
        sleepUntil = { offset in try await base.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        minimumResolution = base.minimumResolution
    }

    public var now: Instant { Instant(offset: nowOffset()) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepUntil(deadline.offset)
    }
}

/// A point in time given as its offset from a clock's origin: the instants of ``AnyClock`` and of
/// the manual clock tests use.
public struct OffsetInstant: InstantProtocol, Sendable, CustomStringConvertible {
    /// How long after the clock's origin this instant is.
    public var offset: Duration

    /// Creates the instant `offset` after the clock's origin.
    public init(offset: Duration) { self.offset = offset }

    public func advanced(by duration: Duration) -> OffsetInstant { OffsetInstant(offset: offset + duration) }
    public func duration(to other: OffsetInstant) -> Duration { other.offset - offset }
    public static func < (lhs: OffsetInstant, rhs: OffsetInstant) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "+\(offset)" }
}
