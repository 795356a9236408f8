#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file holding a secret (an MQTT password, a TLS private key), checked as ssh checks a private
/// key and mosquitto its password file before anything in it is used:
///
/// - it is opened as named; a symbolic link is followed only if the daemon's user or root owns
///   the link (as the kernel's `protected_symlinks` has it), and what it leads to is checked;
/// - it is a regular file (not a folder, a device, a pipe);
/// - it is owned by the user the process runs as, or by root;
/// - neither its group nor others may read, write or run it (mode `0600` or `0400`).
///
/// So a configuration cannot make a daemon read another user's file (or `/etc/shadow`, which is
/// group-readable) as its secret, and a secret that others can read is refused, not used.
public enum SecretFile {
    /// The longest secret read; a larger file is refused (it is no password).
    public static let maximumSize = 64 * 1024

    /// The file's contents, after the checks above.
    /// - Parameter owner: the user who may own the file besides root (the process's effective user).
    /// - Throws: ``SecretFileError`` saying what is wrong and how to fix it.
    public static func read(_ path: String, owner: uid_t = SystemCall.effectiveUser) throws(SecretFileError) -> [UInt8] {
        let descriptor = try open(path, owner: owner)
        defer { SystemCall.close(descriptor) }
        let bytes: [UInt8]
        do {
            bytes = try SystemCall.readToEnd(descriptor, limit: maximumSize)
        } catch {
            throw SecretFileError(path: path, problem: "cannot be read: \(error.message)", fix: nil)
        }
        guard bytes.count <= maximumSize else {
            throw SecretFileError(path: path, problem: "is larger than \(maximumSize / 1024) KiB, so it holds no password or key", fix: "name the right file")
        }
        return bytes
    }

    /// Checks the file as ``read(_:owner:)`` does without reading it (for a file that a library
    /// reads itself, as libmosquitto reads a TLS key).
    public static func check(_ path: String, owner: uid_t = SystemCall.effectiveUser) throws(SecretFileError) {
        SystemCall.close(try open(path, owner: owner))
    }

    /// Opens the file and checks what was opened (not the name, which may change meanwhile).
    private static func open(_ path: String, owner: uid_t) throws(SecretFileError) -> Int32 {
        let user = userName(owner)
        // A link another user owns could be pointed at any file the daemon may read (a root
        // daemon's own private keys): not followed.
        if let link = try? SystemCall.lstat(path), link.st_mode & S_IFMT == S_IFLNK, link.st_uid != owner, link.st_uid != 0 {
            throw SecretFileError(path: path, problem: "is a symbolic link owned by \(userName(link.st_uid)), who could point it at any file",
                                  fix: "name the file itself, or make the link \(owner == 0 ? "root's" : "\(user)'s or root's") (chown -h \(user) \(path))")
        }
        // O_NONBLOCK: a FIFO planted under the name is not waited on; O_NOCTTY: nor a terminal taken.
        let descriptor: Int32
        do {
            descriptor = try SystemCall.open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        } catch {
            switch error {
            case .noSuchFileOrDirectory, .notDirectory:
                throw SecretFileError(path: path, problem: "does not exist (\(error.message))", fix: "create it, owned by \(user) with mode 600, or correct the path")
            case .permissionDenied:
                throw SecretFileError(path: path, problem: "cannot be read by \(user) (\(error.message))", fix: "chown \(user) \(path) && chmod 600 \(path)")
            default:
                throw SecretFileError(path: path, problem: "cannot be opened (\(error.message))", fix: nil)
            }
        }
        let status: stat
        do {
            status = try SystemCall.fstat(descriptor)
        } catch {
            SystemCall.close(descriptor)
            throw SecretFileError(path: path, problem: "cannot be examined (\(error.message))", fix: nil)
        }
        let problem: (String, String)?
        if status.st_mode & S_IFMT != S_IFREG {
            problem = ("is not a regular file", "name a regular file owned by \(user) with mode 600")
        } else if status.st_uid != owner && status.st_uid != 0 {
            problem = ("is owned by \(userName(status.st_uid)), not by \(owner == 0 ? "root" : "\(user) or root"), so another user controls this secret",
                       "chown \(user) \(path) && chmod 600 \(path)")
        } else if status.st_mode & 0o077 != 0 {
            problem = ("has mode \(String(status.st_mode & 0o777, radix: 8)): its group or others may use it, and a secret must be private",
                       "chmod 600 \(path)")
        } else {
            problem = nil
        }
        guard let (what, fix) = problem else {
            // Reads block again (the file is regular: O_NONBLOCK never mattered for it).
            return descriptor
        }
        SystemCall.close(descriptor)
        throw SecretFileError(path: path, problem: what, fix: fix)
    }

    static func userName(_ uid: uid_t) -> String { SystemFiles.userName(uid) ?? "uid \(uid)" }
}

/// A secret file that cannot be used: where, what is wrong, and the command that fixes it.
public struct SecretFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var fix: String?

    public init(path: String, problem: String, fix: String?) {
        self.path = path
        self.problem = problem
        self.fix = fix
    }

    public var description: String { "\(path) \(problem)" + (fix.map { "; \($0)" } ?? "") }
}
