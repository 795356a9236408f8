#if canImport(Glibc)
import Glibc
#endif

/// A value behind a lock: `withLock` gives exclusive access to it. Built on `pthread_mutex_t`
/// rather than `Synchronization.Mutex`, whose futex lock on Linux ThreadSanitizer cannot see: with
/// it every contended access would be reported as a race, and the sanitizer run (which fails on any
/// report) would say nothing true. Switchboard's locks are short and never held across `await`.
public final class Locked<Value>: @unchecked Sendable {
    // Invariant: `value` is only read or written between lock and unlock of `mutex`; the mutex is
    // initialised once here and destroyed once in deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body(&valueStorage)
    }

    @usableFromInline
    var valueStorage: Value {
        _read { yield value }
        _modify { yield &value }
    }

    /// Runs `body` with the value if the lock is free; nil, without waiting, if another thread holds it.
    @inlinable
    public func withLockIfAvailable<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return try body(&valueStorage)
    }

    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    @usableFromInline
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }
}
