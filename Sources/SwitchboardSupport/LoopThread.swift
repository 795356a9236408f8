#if canImport(Glibc)
import Glibc
#endif

/// A detached thread of its own for an ``EventLoop`` (or a HAP connection): it blocks in `poll`
/// or `read` and never takes a thread of Swift's cooperative pool or of Dispatch.
public enum LoopThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread for the loop called `name`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        // Without a thread the loop could never run a job: as fatal as running out of memory.
        precondition(result == 0, "switchboard: cannot start the thread of event loop \(name): \(Errno(result).message)")
    }
}
