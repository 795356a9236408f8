import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// A detached thread of its own for an MQTT connection: it sleeps in `poll` and never takes a
/// thread of Swift's cooperative pool or of Dispatch.
enum ConnectionThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread.
    static func start(_ body: @escaping @Sendable () -> Void) {
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
        // Without a thread the connection could never connect: as fatal as running out of memory.
        precondition(result == 0, "switchboard: cannot start the MQTT connection's thread: \(Errno(result).message)")
    }
}
