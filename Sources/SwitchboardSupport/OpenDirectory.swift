#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A directory opened once, without following a link in its place, and the files in it reached
/// through that descriptor only (`openat`, `fstatat`, `renameat`), never following links: a
/// directory renamed or a link planted after it was opened cannot redirect a write.
public final class OpenDirectory: Sendable {
    /// The path it was opened at, for messages.
    public let path: String
    // Invariant: opened in init, closed once, in deinit.
    private let descriptor: Int32

    /// Opens `path` (`open` with `O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`).
    /// - Throws: ``SystemCallError`` for the `open` that failed (`ELOOP`: the path is a link).
    public init(_ path: String) throws(SystemCallError) {
        let descriptor = SystemFiles.retryingInterrupts { open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The directory's own owner and mode (`fstat`).
    public func status() throws(SystemCallError) -> FileStatus {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SystemCallError(call: "fstat", errno: errno) }
        return FileStatus(status)
    }

    /// A name's owner, mode and type, not following a link (`fstatat` with
    /// `AT_SYMLINK_NOFOLLOW`); nil when there is no such name.
    public func status(of name: String) throws(SystemCallError) -> FileStatus? {
        var status = stat()
        guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError(call: "fstatat", errno: errno)
        }
        return FileStatus(status)
    }

    /// Opens a file in the directory (`openat` with `O_NOFOLLOW | O_CLOEXEC` added to `flags`); the
    /// caller closes the descriptor.
    /// - Throws: ``SystemCallError`` for the `openat` that failed (`ELOOP`: the name is a link).
    public func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0o640) throws(SystemCallError) -> Int32 {
        let file = SystemFiles.retryingInterrupts { openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
        guard file >= 0 else { throw SystemCallError(call: "openat", errno: errno) }
        return file
    }

    /// A whole file of the directory; nil when there is no such name.
    /// - Throws: ``SystemCallError`` for the `openat` or `read` that failed.
    public func read(_ name: String) throws(SystemCallError) -> [UInt8]? {
        let file = SystemFiles.retryingInterrupts { openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard file >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemCallError(call: "openat", errno: errno)
        }
        defer { close(file) }
        return try SystemFiles.readToEnd(file)
    }

    /// Renames `name` to `newName` within the directory (`renameat`), replacing what is there.
    public func rename(_ name: String, to newName: String) throws(SystemCallError) {
        guard renameat(descriptor, name, descriptor, newName) == 0 else { throw SystemCallError(call: "renameat", errno: errno) }
    }

    /// Puts the directory's entries on storage (`fsync` on the directory).
    public func sync() {
        _ = fsync(descriptor)
    }

    /// Creates the directory at `path` with `mode` (less the umask) unless it exists, and the
    /// folders above it as needed (`mkdir`).
    /// - Throws: ``SystemCallError`` for the `mkdir` that failed.
    public static func make(_ path: String, mode: mode_t) throws(SystemCallError) {
        let components = path.split(separator: "/")
        var partial = path.hasPrefix("/") ? "" : "."
        for (index, component) in components.enumerated() {
            partial += "/" + component
            if mkdir(partial, index == components.count - 1 ? mode : 0o755) != 0, errno != EEXIST {
                throw SystemCallError(call: "mkdir", errno: errno)
            }
        }
    }
}

/// A file's owner, permission bits and type, as `stat` reports them.
public struct FileStatus: Sendable, Equatable {
    public var owner: uid_t
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: mode_t
    public var isDirectory: Bool
    public var isRegularFile: Bool
    public var isSymbolicLink: Bool

    init(_ status: stat) {
        owner = status.st_uid
        permissions = status.st_mode & 0o7777
        isDirectory = status.st_mode & S_IFMT == S_IFDIR
        isRegularFile = status.st_mode & S_IFMT == S_IFREG
        isSymbolicLink = status.st_mode & S_IFMT == S_IFLNK
    }

    /// Whether its group or others may write it.
    public var isWritableByOthers: Bool { permissions & (S_IWGRP | S_IWOTH) != 0 }
}
