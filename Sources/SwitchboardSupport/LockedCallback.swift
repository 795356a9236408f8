/// A callback that one side sets, replaces or removes while others call it: a message handler, a
/// target set once a service runs.
///
/// Not `Locked<Callback?>`: a value of function type reached through `withLock`'s `inout` is
/// reabstracted and written back wrapped in a thunk, so every read adds a layer and the callback
/// ends up as many thunks deep as it was read (a handler read per MQTT message slowed to a crawl
/// within seconds). Here the callback sits in a struct, which is never reabstracted.
public final class LockedCallback<Callback>: @unchecked Sendable {
    // Invariant: `slot` is only touched under its lock; `Callback` is a `@Sendable` function type
    // (callers pass one: the type system cannot say so for a generic function type).
    private struct Slot {
        var callback: Callback?
    }

    private let slot = Locked(Slot())

    public init() {}

    /// The callback now, if one is set.
    public var callback: Callback? { slot.withLock { $0.callback } }

    /// Sets the callback, or removes it with nil.
    public func set(_ callback: Callback?) { slot.withLock { $0.callback = callback } }
}
