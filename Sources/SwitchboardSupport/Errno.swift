#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An error number (`errno`) as a value: what a failed system call said, with its symbolic name
/// (`ENOENT`) and the C library's text for it (`No such file or directory`), as swift-system's
/// `Errno` has it. Thrown by ``SystemCall``; carried by the typed errors built on it.
public struct Errno: RawRepresentable, Error, Sendable, Hashable, CustomStringConvertible {
    /// The number, as `errno` holds it.
    public let rawValue: CInt

    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The error number `rawValue`.
    public init(_ rawValue: CInt) { self.rawValue = rawValue }

    /// What the calling thread's `errno` holds now: read it straight after the call that failed.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The symbolic name (`ENOENT`), or `errno 123` for a number this type does not name.
    public var name: String { Self.names[rawValue] ?? "errno \(rawValue)" }

    /// The C library's text for it (`strerror`): `No such file or directory`.
    public var message: String { String(cString: strerror(rawValue)) }

    /// The text and the name: `No such file or directory (ENOENT)`.
    public var description: String { "\(message) (\(name))" }

    /// `EPERM`: the operation is not permitted.
    public static let notPermitted = Errno(EPERM)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(ENOENT)
    /// `ESRCH`: no such process.
    public static let noSuchProcess = Errno(ESRCH)
    /// `EINTR`: a signal interrupted the call. ``SystemCall`` retries it wherever that is safe.
    public static let interrupted = Errno(EINTR)
    /// `EIO`: an input/output error (also: a write that wrote nothing).
    public static let ioError = Errno(EIO)
    /// `EBADF`: not an open descriptor.
    public static let badFileDescriptor = Errno(EBADF)
    /// `ECHILD`: no such child process.
    public static let noChildProcess = Errno(ECHILD)
    /// `EAGAIN`: a non-blocking descriptor has nothing to read or no room to write.
    public static let resourceTemporarilyUnavailable = Errno(EAGAIN)
    /// `EWOULDBLOCK`, the same number as `EAGAIN` on Linux.
    public static let wouldBlock = Errno(EWOULDBLOCK)
    /// `ENOMEM`: out of memory.
    public static let noMemory = Errno(ENOMEM)
    /// `EACCES`: permission denied.
    public static let permissionDenied = Errno(EACCES)
    /// `EEXIST`: the file exists.
    public static let fileExists = Errno(EEXIST)
    /// `ENOTDIR`: a component of the path is not a directory.
    public static let notDirectory = Errno(ENOTDIR)
    /// `EISDIR`: the path is a directory.
    public static let isDirectory = Errno(EISDIR)
    /// `EINVAL`: an invalid argument.
    public static let invalidArgument = Errno(EINVAL)
    /// `ENFILE`: the system has no descriptors left.
    public static let tooManyOpenFilesInSystem = Errno(ENFILE)
    /// `EMFILE`: this process has no descriptors left (its open-file limit).
    public static let tooManyOpenFiles = Errno(EMFILE)
    /// `ENOSPC`: no space left on the device.
    public static let noSpace = Errno(ENOSPC)
    /// `EROFS`: a read-only file system.
    public static let readOnlyFileSystem = Errno(EROFS)
    /// `EPIPE`: the reading end is closed.
    public static let brokenPipe = Errno(EPIPE)
    /// `ENAMETOOLONG`: a file name is too long.
    public static let fileNameTooLong = Errno(ENAMETOOLONG)
    /// `ELOOP`: too many symbolic links, or a link where `O_NOFOLLOW` forbids one.
    public static let tooManySymbolicLinkLevels = Errno(ELOOP)
    /// `EPROTO`: a protocol error (a connection lost mid-packet).
    public static let protocolError = Errno(EPROTO)
    /// `ENOBUFS`: no buffer space available.
    public static let noBufferSpace = Errno(ENOBUFS)
    /// `ECONNABORTED`: a connection was aborted before it was accepted.
    public static let connectionAbort = Errno(ECONNABORTED)
    /// `ECONNRESET`: the peer reset the connection.
    public static let connectionReset = Errno(ECONNRESET)
    /// `ETIMEDOUT`: the operation timed out.
    public static let timedOut = Errno(ETIMEDOUT)
    /// `ECONNREFUSED`: nobody listens there.
    public static let connectionRefused = Errno(ECONNREFUSED)
    /// `EADDRINUSE`: the address is in use.
    public static let addressInUse = Errno(EADDRINUSE)
    /// `EDQUOT`: the user's disk quota is exceeded.
    public static let diskQuotaExceeded = Errno(EDQUOT)
    /// `EBUSY`: the device or resource is busy.
    public static let resourceBusy = Errno(EBUSY)
    /// `ENODEV`: no such device.
    public static let noDevice = Errno(ENODEV)
    /// `ENXIO`: no such device or address.
    public static let noSuchDeviceOrAddress = Errno(ENXIO)
    /// `ENOTSOCK`: not a socket.
    public static let notSocket = Errno(ENOTSOCK)
    /// `ENOTCONN`: the socket is not connected.
    public static let socketNotConnected = Errno(ENOTCONN)

    private static let names: [CInt: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        E2BIG: "E2BIG", ENOEXEC: "ENOEXEC", EBADF: "EBADF", ECHILD: "ECHILD", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM",
        EACCES: "EACCES", EFAULT: "EFAULT", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV", ENODEV: "ENODEV",
        ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ENOTTY: "ENOTTY",
        ETXTBSY: "ETXTBSY", EFBIG: "EFBIG", ENOSPC: "ENOSPC", ESPIPE: "ESPIPE", EROFS: "EROFS", EMLINK: "EMLINK",
        EPIPE: "EPIPE", ERANGE: "ERANGE", EDEADLK: "EDEADLK", ENAMETOOLONG: "ENAMETOOLONG", ENOLCK: "ENOLCK",
        ENOSYS: "ENOSYS", ENOTEMPTY: "ENOTEMPTY", ELOOP: "ELOOP", EPROTO: "EPROTO", EOVERFLOW: "EOVERFLOW",
        ENOTSOCK: "ENOTSOCK", EDESTADDRREQ: "EDESTADDRREQ", EMSGSIZE: "EMSGSIZE", EPROTOTYPE: "EPROTOTYPE",
        EOPNOTSUPP: "EOPNOTSUPP", EAFNOSUPPORT: "EAFNOSUPPORT", EADDRINUSE: "EADDRINUSE", EADDRNOTAVAIL: "EADDRNOTAVAIL",
        ENETDOWN: "ENETDOWN", ENETUNREACH: "ENETUNREACH", ECONNABORTED: "ECONNABORTED", ECONNRESET: "ECONNRESET",
        ENOBUFS: "ENOBUFS", EISCONN: "EISCONN", ENOTCONN: "ENOTCONN", ETIMEDOUT: "ETIMEDOUT",
        ECONNREFUSED: "ECONNREFUSED", EHOSTUNREACH: "EHOSTUNREACH", EALREADY: "EALREADY", EINPROGRESS: "EINPROGRESS",
        EDQUOT: "EDQUOT", ECANCELED: "ECANCELED",
    ]
}
