/// A change observers of a ``ControlCenter`` receive.
public enum ControlChange: Sendable, Hashable {
    /// A placed control's presentation changed (or it was placed).
    case presentation(ControlPresentation)
    /// A placed control was removed.
    case removed(id: String)
    /// Switchboard was locked or unlocked.
    case locked(Bool)
}

/// The changes of a ``ControlCenter``, as an `AsyncSequence`.
public struct ControlChanges: AsyncSequence, Sendable {
    public typealias Element = ControlChange
    let stream: AsyncStream<ControlChange>

    public func makeAsyncIterator() -> AsyncStream<ControlChange>.AsyncIterator { stream.makeAsyncIterator() }
}
