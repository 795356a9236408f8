import CSpawn
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// A Unix domain stream socket, close-on-exec (`socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`),
    /// non-blocking when `nonblocking` (`SOCK_NONBLOCK`).
    public static func unixStreamSocket(nonblocking: Bool = false) throws(Errno) -> CInt {
        let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | (nonblocking ? CInt(SOCK_NONBLOCK.rawValue) : 0)
        return try checking { socket(AF_UNIX, type, 0) }
    }

    /// A connected pair of Unix domain stream sockets, both close-on-exec (`socketpair`).
    public static func unixStreamSocketPair() throws(Errno) -> (CInt, CInt) {
        var ends: [CInt] = [-1, -1]
        _ = try checking { socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, &ends) }
        return (ends[0], ends[1])
    }

    /// A Unix domain datagram socket, close-on-exec (`socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)`).
    public static func unixDatagramSocket() throws(Errno) -> CInt {
        try checking { socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }
    }

    /// Sends `bytes` as one datagram to `address` with `MSG_NOSIGNAL` (`sendto`); returns how many
    /// were sent.
    public static func send(_ descriptor: CInt, _ bytes: [UInt8], to address: UnixSocketAddress) throws(Errno) -> Int {
        try retrying {
            address.withSocketAddress { socketAddress, length in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
    }

    /// The user at the other end of a Unix socket connection (`getsockopt(SO_PEERCRED)`).
    public static func peerUser(of descriptor: CInt) throws(Errno) -> uid_t {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields (Glibc hides the
        // struct's name behind _GNU_SOURCE).
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<UInt32>.size * 3)
        _ = try checking { getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) }
        return uid_t(credentials[1])
    }

    /// Connects a socket to `address` (`connect`). Not retried on `EINTR`: the connection goes on
    /// in the background then, and a second `connect` would fail with `EALREADY`.
    public static func connect(_ descriptor: CInt, to address: UnixSocketAddress) throws(Errno) {
        _ = try checking { address.withSocketAddress { Glibc.connect(descriptor, $0, $1) } }
    }

    /// Binds a socket to `address` (`bind`).
    public static func bind(_ descriptor: CInt, to address: UnixSocketAddress) throws(Errno) {
        _ = try checking { address.withSocketAddress { Glibc.bind(descriptor, $0, $1) } }
    }

    /// Marks a bound socket as accepting connections, with room for `backlog` waiting (`listen`).
    public static func listen(_ descriptor: CInt, backlog: CInt) throws(Errno) {
        _ = try checking { Glibc.listen(descriptor, backlog) }
    }

    /// Accepts a connection, close-on-exec, non-blocking when `nonblocking` (`accept4` with
    /// `SOCK_CLOEXEC`).
    public static func accept(_ listener: CInt, nonblocking: Bool = false) throws(Errno) -> CInt {
        try retrying { sb_accept_cloexec(listener, nonblocking ? 1 : 0) }
    }

    /// Sends at most `buffer.count` bytes on a socket with `MSG_NOSIGNAL` (`send`): a peer that went
    /// away is ``Errno/brokenPipe``, not SIGPIPE.
    public static func send(_ descriptor: CInt, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retrying { Glibc.send(descriptor, buffer.baseAddress, buffer.count, CInt(MSG_NOSIGNAL)) }
    }

    /// Writes at most `bytes.count` of `bytes` to a non-blocking descriptor (`send` with
    /// `MSG_NOSIGNAL` on a socket, `write` otherwise); nil when it is full (`EAGAIN`).
    public static func writeIfReady(_ descriptor: CInt, _ bytes: ArraySlice<UInt8>, isSocket: Bool) throws(Errno) -> Int? {
        do {
            return isSocket ? try send(descriptor, bytes) : try write(descriptor, bytes)
        } catch .wouldBlock {
            return nil
        }
    }

    /// Sends at most `bytes.count` of `bytes` on a socket with `MSG_NOSIGNAL` (`send`).
    public static func send(_ descriptor: CInt, _ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
        try retrying { bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) } }
    }

    /// Shuts down both directions of a connection (`shutdown(SHUT_RDWR)`): the peer reads its end.
    public static func shutdown(_ descriptor: CInt) throws(Errno) {
        _ = try checking { Glibc.shutdown(descriptor, CInt(SHUT_RDWR)) }
    }
}
