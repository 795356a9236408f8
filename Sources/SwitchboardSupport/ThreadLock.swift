#if canImport(Glibc)
import Glibc
#endif

/// A lock without a value: for a type whose own state it guards (the MQTT connection's, around
/// its C handle), and the lock under ``Locked``. A `pthread_mutex_t`, which ThreadSanitizer sees
/// (see ``Locked``); never held across `await`.
public final class ThreadLock: @unchecked Sendable {
    // Invariant: the mutex is initialised once here and destroyed once in deinit.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    @inlinable
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` holding the lock if it is free; nil, without waiting, if another thread holds it.
    @inlinable
    public func withLockIfAvailable<Result>(_ body: () throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
