import CSpawn
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every system call the project makes, in one place, as swift-system's `Syscalls.swift` and
/// swift-nio's `System.swift` keep them: each returns its value or throws the ``Errno`` it failed
/// with, retries `EINTR` where POSIX lets a call be repeated (never `close`, `connect`), and opens
/// every descriptor close-on-exec, so that no child started by another thread inherits it.
///
/// The rest of the code never reads `errno`, calls `strerror` or loops on `EINTR`; the C library
/// adapters (libgpiod's, libmosquitto's) own their library's calls and take `errno` from
/// ``Errno/current``.
public enum SystemCall {
    // MARK: Descriptors and files

    /// Opens `path` (`open` with `O_CLOEXEC` added to `flags`).
    public static func open(_ path: String, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> CInt {
        try retrying { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Opens `name` relative to the directory `directory` (`openat` with `O_CLOEXEC` added to `flags`).
    public static func open(_ name: String, in directory: CInt, _ flags: CInt, mode: mode_t = 0) throws(Errno) -> CInt {
        try retrying { openat(directory, name, flags | O_CLOEXEC, mode) }
    }

    /// Closes a descriptor (`close`), never retried: on Linux the descriptor is gone even when
    /// `close` reports `EINTR`, and a retry could close one another thread just opened.
    public static func close(_ descriptor: CInt) {
        _ = Glibc.close(descriptor)
    }

    /// Reads at most `buffer.count` bytes (`read`); 0 at end of file.
    public static func read(_ descriptor: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retrying { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Reads at most `buffer.count` bytes into the start of `buffer` from a non-blocking
    /// descriptor (`read`); 0 at end of file, nil when there is nothing to read yet (`EAGAIN`).
    public static func readIfReady(_ descriptor: CInt, into buffer: inout [UInt8]) throws(Errno) -> Int? {
        do {
            return try read(descriptor, into: &buffer)
        } catch .wouldBlock {
            return nil
        }
    }

    /// Reads at most `buffer.count` bytes into the start of `buffer` (`read`); 0 at end of file.
    public static func read(_ descriptor: CInt, into buffer: inout [UInt8]) throws(Errno) -> Int {
        try retrying { buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) } }
    }

    /// Writes at most `buffer.count` bytes (`write`); returns how many it wrote.
    public static func write(_ descriptor: CInt, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retrying { Glibc.write(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes at most `bytes.count` of `bytes` (`write`); returns how many it wrote.
    public static func write(_ descriptor: CInt, _ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
        try retrying { bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } }
    }

    /// Whether a descriptor is a terminal (`isatty(3)`).
    public static func isTerminal(_ descriptor: CInt) -> Bool { Glibc.isatty(descriptor) == 1 }

    /// Writes all of `bytes` to a blocking descriptor (`write`, or `send` with `MSG_NOSIGNAL` on a
    /// socket, so that a peer that went away is `EPIPE`, not SIGPIPE), retrying short writes.
    /// - Throws: the ``Errno`` of the write that failed; ``Errno/ioError`` for one that wrote nothing.
    public static func writeAll(_ bytes: [UInt8], to descriptor: CInt, isSocket: Bool = false) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let written = isSocket ? try send(descriptor, bytes[offset...]) : try write(descriptor, bytes[offset...])
            guard written > 0 else { throw .ioError }
            offset += written
        }
    }

    /// Reads what is left of an open file to its end (`read`), or until more than `limit` bytes
    /// were read (the caller tells that from the count).
    public static func readToEnd(_ descriptor: CInt, limit: Int = .max) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= limit {
            let count = try read(descriptor, into: &buffer)
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
        }
        return bytes
    }

    /// Puts a file's (or a directory's entries') data on storage (`fsync`).
    public static func fsync(_ descriptor: CInt) throws(Errno) {
        _ = try retrying { Glibc.fsync(descriptor) }
    }

    /// Cuts or extends an open file to `size` bytes (`ftruncate`).
    public static func truncate(_ descriptor: CInt, to size: Int) throws(Errno) {
        _ = try retrying { ftruncate(descriptor, off_t(size)) }
    }

    /// Renames `name` in the directory `directory` to `newName` in `newDirectory`, replacing what is
    /// there (`renameat`).
    public static func rename(_ name: String, in directory: CInt, to newName: String, in newDirectory: CInt) throws(Errno) {
        _ = try checking { renameat(directory, name, newDirectory, newName) }
    }

    /// Removes a name (`unlink`).
    public static func unlink(_ path: String) throws(Errno) {
        _ = try checking { Glibc.unlink(path) }
    }

    /// Removes `name` from the directory `directory` (`unlinkat`).
    public static func unlink(_ name: String, in directory: CInt) throws(Errno) {
        _ = try checking { unlinkat(directory, name, 0) }
    }

    /// Creates a directory with `mode` less the umask (`mkdir`).
    public static func mkdir(_ path: String, mode: mode_t) throws(Errno) {
        _ = try checking { Glibc.mkdir(path, mode) }
    }

    /// Creates a named pipe with `mode` less the umask (`mkfifo`).
    public static func mkfifo(_ path: String, mode: mode_t) throws(Errno) {
        _ = try checking { Glibc.mkfifo(path, mode) }
    }

    /// An open file's status (`fstat`).
    public static func fstat(_ descriptor: CInt) throws(Errno) -> stat {
        var status = Glibc.stat()
        _ = try checking { Glibc.fstat(descriptor, &status) }
        return status
    }

    /// The status of `name` in the directory `directory` (`fstatat`), of a link itself unless
    /// `followingLinks`.
    public static func stat(_ name: String, in directory: CInt, followingLinks: Bool = false) throws(Errno) -> stat {
        var status = Glibc.stat()
        _ = try checking { fstatat(directory, name, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// The status of what `path` names, following links (`stat`).
    public static func stat(_ path: String) throws(Errno) -> stat {
        var status = Glibc.stat()
        _ = try checking { fstatat(AT_FDCWD, path, &status, 0) }
        return status
    }

    /// The status of `path` itself, a link not followed (`lstat`).
    public static func lstat(_ path: String) throws(Errno) -> stat {
        var status = Glibc.stat()
        _ = try checking { fstatat(AT_FDCWD, path, &status, AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// A pipe whose ends are both close-on-exec (`pipe2(O_CLOEXEC)`).
    public static func pipe() throws(Errno) -> (read: CInt, write: CInt) {
        var ends: [CInt] = [-1, -1]
        _ = try checking { sb_pipe_cloexec(&ends) }
        return (ends[0], ends[1])
    }

    /// A duplicate of `descriptor`, close-on-exec (`fcntl(F_DUPFD_CLOEXEC)`).
    public static func duplicate(_ descriptor: CInt) throws(Errno) -> CInt {
        try retrying { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
    }

    /// Makes reads and writes on `descriptor` return ``Errno/wouldBlock`` instead of waiting
    /// (`fcntl(F_SETFL, O_NONBLOCK)`).
    public static func setNonBlocking(_ descriptor: CInt) throws(Errno) {
        let flags = try checking { fcntl(descriptor, F_GETFL) }
        _ = try checking { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Sets close-on-exec on a descriptor another library opened (`fcntl(F_SETFD, FD_CLOEXEC)`).
    public static func setCloseOnExec(_ descriptor: CInt) throws(Errno) {
        let flags = try checking { fcntl(descriptor, F_GETFD) }
        _ = try checking { fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
    }

    /// Takes or releases an advisory lock on a whole file (`flock`, `LOCK_EX | LOCK_NB` and the like).
    public static func flock(_ descriptor: CInt, _ operation: CInt) throws(Errno) {
        _ = try retrying { lockFile(descriptor, operation) }
    }

    /// Waits until one of `descriptors` is ready or `timeout` milliseconds passed (-1: for ever)
    /// (`poll`); returns how many are ready, 0 on timeout. Interrupted, it waits again for what is
    /// left of the timeout.
    public static func poll(_ descriptors: inout [pollfd], timeout: CInt) throws(Errno) -> Int {
        let deadline = timeout >= 0 ? ContinuousClock.now + .milliseconds(timeout) : nil
        var remaining = timeout
        while true {
            let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), remaining)
            if ready >= 0 { return Int(ready) }
            let error = Errno.current
            guard error == .interrupted else { throw error }
            if let deadline { remaining = milliseconds(until: deadline) }
        }
    }

    /// Milliseconds from now to `deadline`, rounded up (waking a little early would only wait
    /// again), 0 once it passed.
    public static func milliseconds(until deadline: ContinuousClock.Instant) -> CInt {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        return CInt(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// `path` with every symbolic link, `.` and `..` resolved (`realpath`).
    public static func realPath(_ path: String) throws(Errno) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// What the symbolic link at `path` points to (`readlink`).
    public static func readLink(_ path: String) throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = try checking { readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Checks that this process may read the file at `path` (`access(R_OK)`).
    public static func checkReadable(_ path: String) throws(Errno) {
        _ = try checking { access(path, R_OK) }
    }

    /// Whether this process may run the file at `path` (`access(X_OK)`).
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Runs `body` with the file mode creation mask set to `mask` (`umask`), then restores it: for
    /// a file that must be created with its mode from the start (a socket's, which `bind` makes).
    public static func withUmask<Result>(_ mask: mode_t, _ body: () throws(Errno) -> Result) throws(Errno) -> Result {
        let previous = umask(mask)
        defer { umask(previous) }
        return try body()
    }

    // MARK: Helpers

    /// Calls `call` again while it fails with `EINTR`; throws any other failure's ``Errno``.
    @inline(__always)
    static func retrying<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            let error = Errno.current
            guard error == .interrupted else { throw error }
        }
    }

    /// Calls `call` once; throws its ``Errno`` if it failed.
    @inline(__always)
    static func checking<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
        let result = call()
        guard result >= 0 else { throw Errno.current }
        return result
    }
}

/// `flock`, which a call inside ``SystemCall`` cannot name: there `flock` is the struct.
private func lockFile(_ descriptor: CInt, _ operation: CInt) -> CInt { flock(descriptor, operation) }
