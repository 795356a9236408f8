#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock: `withLock` gives exclusive access to it. Built on `pthread_mutex_t`
/// rather than `Synchronization.Mutex`, whose futex lock on Linux ThreadSanitizer cannot see: with
/// it every contended access would be reported as a race, and the sanitizer run (which fails on any
/// report) would say nothing true. Switchboard's locks are short and never held across `await`.
public final class Locked<Value>: @unchecked Sendable {
    // Invariant: `value` is only read or written holding `lock`.
    @usableFromInline let lock = ThreadLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&valueStorage) }
    }

    @usableFromInline
    var valueStorage: Value {
        _read { yield value }
        _modify { yield &value }
    }
}
