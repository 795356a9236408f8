import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// A listening Unix domain socket whose accepted connections arrive as an `AsyncSequence` of
/// file descriptors. The socket file is created with mode 0660 (owner and group may connect).
public final class UnixSocketListener: Sendable {
    public let path: String
    private let connections: AsyncStream<Int32>
    private let watch: DescriptorWatch

    /// How long accepting pauses when the process is short of file descriptors.
    static let descriptorBackoff = DispatchTimeInterval.milliseconds(100)

    /// The descriptors accepting leaves free for the rest of the daemon: libdispatch's thread
    /// monitor (which stops the process when it cannot open one), MQTT reconnects, extensions'
    /// pipes, the files it reads and writes. Clients alone never take the last of them.
    public static let descriptorHeadroom = 16

    /// Binds and listens, replacing a stale socket file.
    /// - Parameter log: told when accepting pauses because the process is short of descriptors.
    /// - Throws: ``SocketError`` naming the path and the reason.
    public init(path: String, mode: mode_t = 0o660, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.path = path
        let descriptor: Int32
        do {
            descriptor = try SystemCall.unixStreamSocket(nonblocking: true)
        } catch {
            throw SocketError(path: path, reason: "cannot create a socket: \(error.message)")
        }
        guard let address = UnixSocketAddress(path: path) else {
            SystemCall.close(descriptor)
            throw SocketError(path: path, reason: "is longer than \(UnixSocketAddress.maximumPathLength) bytes; choose a shorter --socket path")
        }
        // A socket file that answers belongs to a running daemon: never take it over. One that
        // does not is left over from a daemon that died, and is replaced.
        let probe = try? SystemCall.unixStreamSocket()
        let answered = probe.map { (try? SystemCall.connect($0, to: address)) != nil } ?? false
        if let probe { SystemCall.close(probe) }
        if answered {
            SystemCall.close(descriptor)
            throw SocketError(path: path, reason: "is served by another switchboardd; stop it (systemctl stop switchboardd) or choose another --socket")
        }
        try? SystemCall.unlink(path)
        // Created with `mode` from the start: never, even briefly, with the umask's permissions;
        // and no `chmod` by path after it, which would follow a link put in its place meanwhile.
        do {
            try SystemCall.withUmask(~mode & 0o777) { () throws(Errno) in try SystemCall.bind(descriptor, to: address) }
            try SystemCall.listen(descriptor, backlog: 64)
        } catch {
            SystemCall.close(descriptor)
            throw SocketError(path: path, reason: "cannot listen: \(error.message); check that its folder exists and is writable by this user")
        }
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.connections = stream
        guard let loop = EventLoop.shared else {
            SystemCall.close(descriptor)
            throw SocketError(path: path, reason: "cannot be watched: no file descriptor left for the event loop's pipe; raise the open-file limit (LimitNOFILE=)")
        }
        let logged = Locked<ContinuousClock.Instant?>(nil)
        let headroom = DescriptorHeadroom()
        watch = loop.watch(descriptor, readable: { watch in
            Self.acceptPending(descriptor, into: continuation, watch: watch, headroom: headroom, logged: logged, log: log)
        }, cancelled: {
            SystemCall.close(descriptor)
            continuation.finish()
        })
    }

    /// Accepts the connections waiting (`accept4`), on the descriptor loop's thread: goes on
    /// after one that was aborted before it was accepted, stops when none is left, and pauses (the
    /// watch paused for ``descriptorBackoff``) while no more than ``descriptorHeadroom``
    /// descriptors are free, or when `accept` finds none.
    private static func acceptPending(
        _ descriptor: Int32, into continuation: AsyncStream<Int32>.Continuation, watch: DescriptorWatch,
        headroom: DescriptorHeadroom, logged: Locked<ContinuousClock.Instant?>, log: @Sendable (String) -> Void
    ) {
        // The connection waits in the backlog and the socket stays readable, so accepting stops
        // watching it for a moment instead of spinning.
        func pause(_ reason: String) {
            if logged.withLock({ last in
                defer { last = .now }
                return last.map { $0.duration(to: .now) > .seconds(10) } ?? true
            }) {
                log("socket: \(reason); accepting pauses 100 ms at a time until more are free (raise the daemon's open-file limit, LimitNOFILE=, if this goes on)")
            }
            watch.pause()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.descriptorBackoff) { watch.resume() }
        }
        while true {
            if let free = headroom.free(), free <= descriptorHeadroom {
                pause("\(free) file descriptors left, which the daemon keeps for itself")
                return
            }
            do {
                continuation.yield(try SystemCall.accept(descriptor))
            } catch .connectionAbort {
                continue
            } catch let error where [.tooManyOpenFiles, .tooManyOpenFilesInSystem, .noBufferSpace, .noMemory].contains(error) {
                pause("no file descriptors left (\(error.message))")
                return
            } catch {
                return
            }
        }
    }

    deinit {
        // The descriptor is closed by the watch's cancellation, once the loop no longer polls it.
        watch.cancel()
        try? SystemCall.unlink(path)
    }

    /// Accepted connections; each descriptor is the receiver's to close.
    public var accepted: AsyncStream<Int32> { connections }

    /// Stops accepting.
    public func stop() { watch.cancel() }
}

/// The local socket could not be set up.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "socket \(path) \(reason)" }
}
