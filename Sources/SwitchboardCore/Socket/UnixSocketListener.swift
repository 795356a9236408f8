import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// A listening Unix domain socket whose accepted connections arrive as an `AsyncSequence` of
/// file descriptors. The socket file is created with mode 0660 (owner and group may connect).
public final class UnixSocketListener: Sendable {
    public let path: String
    private let descriptor: Int32
    private let connections: AsyncStream<Int32>
    private let source: SourceCancellation

    /// How long accepting pauses when the process is out of file descriptors.
    static let descriptorBackoff = DispatchTimeInterval.milliseconds(100)

    /// Binds and listens, replacing a stale socket file.
    /// - Parameter log: told when accepting pauses because the process has no descriptors left.
    /// - Throws: ``SocketError`` naming the path and the reason.
    public init(path: String, mode: mode_t = 0o660, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.path = path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(path: path, reason: "cannot create a socket: \(String(cString: strerror(errno)))") }
        guard let address = UnixSocketAddress(path: path) else {
            close(descriptor)
            throw SocketError(path: path, reason: "is longer than \(UnixSocketAddress.maximumPathLength) bytes; choose a shorter --socket path")
        }
        // A socket file that answers belongs to a running daemon: never take it over. One that
        // does not is left over from a daemon that died, and is replaced.
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let answered = probe >= 0 && address.withSocketAddress { connect(probe, $0, $1) } == 0
        if probe >= 0 { close(probe) }
        if answered {
            close(descriptor)
            throw SocketError(path: path, reason: "is served by another switchboardd; stop it (systemctl stop switchboardd) or choose another --socket")
        }
        unlink(path)
        // Created with `mode` from the start: never, even briefly, with the umask's permissions;
        // and no `chmod` by path after it, which would follow a link put in its place meanwhile.
        let previousMask = umask(~mode & 0o777)
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        umask(previousMask)
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw SocketError(path: path, reason: "cannot listen: \(reason); check that its folder exists and is writable by this user")
        }
        self.descriptor = descriptor
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "switchboard.socket.accept")
        let logged = Locked<ContinuousClock.Instant?>(nil)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler {
            while true {
                let client = Descriptors.accept(descriptor)
                if client >= 0 {
                    continuation.yield(client)
                    continue
                }
                switch errno {
                case EINTR, ECONNABORTED:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: the pending connection stays in the backlog and the
                    // socket stays readable, so stop watching it for a moment instead of spinning.
                    let reason = String(cString: strerror(errno))
                    if logged.withLock({ last in
                        defer { last = .now }
                        return last.map { $0.duration(to: .now) > .seconds(10) } ?? true
                    }) {
                        log("socket: no file descriptors left (\(reason)); accepting pauses 100 ms at a time until some are free")
                    }
                    source.suspend()
                    let suspended = SourceCancellation(source)
                    queue.asyncAfter(deadline: .now() + Self.descriptorBackoff) { suspended.resume() }
                    return
                default:
                    return
                }
            }
        }
        source.setCancelHandler { continuation.finish() }
        source.resume()
        self.source = SourceCancellation(source)
        self.connections = stream
    }

    deinit {
        source.cancel()
        close(descriptor)
        unlink(path)
    }

    /// Accepted connections; each descriptor is the receiver's to close.
    public var accepted: AsyncStream<Int32> { connections }

    /// Stops accepting.
    public func stop() { source.cancel() }
}

/// The local socket could not be set up.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "socket \(path) \(reason)" }
}
