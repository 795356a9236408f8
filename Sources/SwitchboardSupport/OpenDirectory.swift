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
        let descriptor = try SystemCallError.naming("open") { () throws(Errno) in try SystemCall.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }

    /// The directory's own owner and mode (`fstat`).
    public func status() throws(SystemCallError) -> FileStatus {
        FileStatus(try SystemCallError.naming("fstat") { () throws(Errno) in try SystemCall.fstat(descriptor) })
    }

    /// A name's owner, mode and type, not following a link (`fstatat` with
    /// `AT_SYMLINK_NOFOLLOW`); nil when there is no such name.
    public func status(of name: String) throws(SystemCallError) -> FileStatus? {
        do {
            return FileStatus(try SystemCall.stat(name, in: descriptor))
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw SystemCallError(call: "fstatat", errno: error)
        }
    }

    /// Opens a file in the directory (`openat` with `O_NOFOLLOW | O_CLOEXEC` added to `flags`); the
    /// caller closes the descriptor.
    /// - Throws: ``SystemCallError`` for the `openat` that failed (`ELOOP`: the name is a link).
    public func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0o640) throws(SystemCallError) -> Int32 {
        try SystemCallError.naming("openat") { () throws(Errno) in try SystemCall.open(name, in: descriptor, flags | O_NOFOLLOW, mode: mode) }
    }

    /// A whole file of the directory; nil when there is no such name.
    /// - Throws: ``SystemCallError`` for the `openat` or `read` that failed.
    public func read(_ name: String) throws(SystemCallError) -> [UInt8]? {
        let file: Int32
        do {
            file = try SystemCall.open(name, in: descriptor, O_RDONLY | O_NOFOLLOW)
        } catch .noSuchFileOrDirectory {
            return nil
        } catch {
            throw SystemCallError(call: "openat", errno: error)
        }
        defer { SystemCall.close(file) }
        return try SystemFiles.readToEnd(file)
    }

    /// Renames `name` to `newName` within the directory (`renameat`), replacing what is there.
    public func rename(_ name: String, to newName: String) throws(SystemCallError) {
        try SystemCallError.naming("renameat") { () throws(Errno) in try SystemCall.rename(name, in: descriptor, to: newName, in: descriptor) }
    }

    /// Removes `name` from the directory (`unlinkat`).
    public func remove(_ name: String) throws(SystemCallError) {
        try SystemCallError.naming("unlinkat") { () throws(Errno) in try SystemCall.unlink(name, in: descriptor) }
    }

    /// Replaces a file of the directory whole: writes `bytes` to `<name>.tmp` (`mode`), renames it
    /// over `name`, so that readers see the old file or the new one, never a part.
    /// - Parameter durable: syncs the file before the rename and the directory after it, so that a
    ///   power cut too leaves the old file or the new one. Without it the call does not wait for
    ///   storage, and a power cut may leave the last change unwritten.
    /// - Throws: ``SystemCallError`` for the `openat`, `write`, `fsync` or `renameat` that failed.
    public func replace(_ name: String, with bytes: [UInt8], mode: mode_t, durable: Bool = true) throws(SystemCallError) {
        let temporary = name + ".tmp"
        let file = try openFile(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        defer { SystemCall.close(file) }
        try SystemCallError.naming("write") { () throws(Errno) in try SystemCall.writeAll(bytes, to: file) }
        if durable { try SystemCallError.naming("fsync") { () throws(Errno) in try SystemCall.fsync(file) } }
        try rename(temporary, to: name)
        if durable { sync() }
    }

    /// Puts the directory's entries on storage (`fsync` on the directory).
    public func sync() {
        try? SystemCall.fsync(descriptor)
    }

    /// Creates the directory at `path` with `mode` (less the umask) unless it exists, and the
    /// folders above it as needed (`mkdir`).
    /// - Throws: ``SystemCallError`` for the `mkdir` that failed.
    public static func make(_ path: String, mode: mode_t) throws(SystemCallError) {
        let components = path.split(separator: "/")
        var partial = path.hasPrefix("/") ? "" : "."
        for (index, component) in components.enumerated() {
            partial += "/" + component
            do {
                try SystemCall.mkdir(partial, mode: index == components.count - 1 ? mode : 0o755)
            } catch .fileExists {
                continue
            } catch {
                throw SystemCallError(call: "mkdir", errno: error)
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
