#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// A listening IPv4 TCP socket, close-on-exec (`socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC)`,
    /// `SO_REUSEADDR`, `bind`, `listen`), on the loopback address when `loopbackOnly`, else on every
    /// address; port 0 picks a free one. Returns the descriptor and the port it listens on.
    public static func tcpListener(port: UInt16, loopbackOnly: Bool, backlog: CInt = 64) throws(Errno) -> (descriptor: CInt, port: UInt16) {
        let descriptor = try checking { socket(AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }
        do throws(Errno) {
            try setOption(descriptor, SOL_SOCKET, SO_REUSEADDR, 1)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = (loopbackOnly ? INADDR_LOOPBACK : INADDR_ANY).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = try checking {
                withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) } }
            }
            _ = try checking { Glibc.listen(descriptor, backlog) }
            _ = try checking {
                withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
            }
            return (descriptor, UInt16(bigEndian: address.sin_port))
        } catch {
            close(descriptor)
            throw error
        }
    }
}

extension SystemCall {
    /// Bounds how long a blocking send on a socket waits for the peer (`SO_SNDTIMEO`); a send
    /// that times out fails with ``Errno/wouldBlock``.
    public static func setSendTimeout(_ descriptor: CInt, _ timeout: Duration) throws(Errno) {
        var value = timeval(timeout)
        _ = try checking { setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) }
    }

    /// Bounds how long a blocking read on a socket waits for data (`SO_RCVTIMEO`), nil for no
    /// bound; a read that times out fails with ``Errno/wouldBlock``. A bound under a microsecond
    /// would mean none to the kernel: it is made one microsecond.
    public static func setReceiveTimeout(_ descriptor: CInt, _ timeout: Duration?) throws(Errno) {
        var value = timeout.map { timeval(max($0, .microseconds(1))) } ?? timeval(tv_sec: 0, tv_usec: 0)
        _ = try checking { setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) }
    }
}

/// How a TCP connection finds out that its peer is gone without having closed it (a phone that
/// left the network or lost its power): after `idle` without traffic the kernel sends a probe
/// every `interval`, and ends the connection when `probes` of them in a row go unanswered; data
/// sent and not acknowledged for as long (`TCP_USER_TIMEOUT`) ends it too. A peer that is there
/// answers the probes from its kernel, however quiet its program is.
public struct TCPKeepAlive: Sendable, Equatable {
    /// How long a connection may be silent before the first probe.
    public var idle: Duration
    /// The time between probes.
    public var interval: Duration
    /// How many unanswered probes end the connection.
    public var probes: Int

    public init(idle: Duration, interval: Duration, probes: Int) {
        self.idle = idle
        self.interval = interval
        self.probes = probes
    }

    /// The longest a vanished peer can hold the connection: `idle + interval × probes`.
    public var limit: Duration { idle + interval * probes }
}

extension SystemCall {
    /// Turns on TCP keep-alive on a connected socket (`SO_KEEPALIVE`, `TCP_KEEPIDLE`,
    /// `TCP_KEEPINTVL`, `TCP_KEEPCNT`) and bounds unacknowledged data by the same limit
    /// (`TCP_USER_TIMEOUT`). Times are whole seconds, at least one.
    public static func setKeepAlive(_ descriptor: CInt, _ keepAlive: TCPKeepAlive) throws(Errno) {
        func seconds(_ duration: Duration) -> CInt { CInt(max(1, duration.components.seconds)) }
        func set(_ level: CInt, _ option: CInt, _ value: CInt) throws(Errno) {
            try setOption(descriptor, level, option, value)
        }
        let tcp = CInt(IPPROTO_TCP)
        try set(SOL_SOCKET, SO_KEEPALIVE, 1)
        try set(tcp, TCP_KEEPIDLE, seconds(keepAlive.idle))
        try set(tcp, TCP_KEEPINTVL, seconds(keepAlive.interval))
        try set(tcp, TCP_KEEPCNT, CInt(max(1, keepAlive.probes)))
        let limit = keepAlive.limit.components
        try set(tcp, TCP_USER_TIMEOUT, CInt(min(Int64(CInt.max), limit.seconds * 1000 + limit.attoseconds / 1_000_000_000_000_000)))
    }

    /// `TCP_NODELAY`: each write goes out at once instead of waiting, as Nagle's algorithm has it,
    /// for the peer to acknowledge what is in flight. Without it, a reply sent right after an
    /// unacknowledged event waits for the peer's delayed ACK (40 ms on Linux).
    public static func setNoDelay(_ descriptor: CInt) throws(Errno) {
        try setOption(descriptor, CInt(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// `setsockopt` of an integer option.
    private static func setOption(_ descriptor: CInt, _ level: CInt, _ option: CInt, _ value: CInt) throws(Errno) {
        var value = value
        _ = try checking { setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<CInt>.size)) }
    }
}

private extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
