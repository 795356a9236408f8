#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Files and folders the kernel serves (/proc, /sys, /dev), read with plain system calls: such
/// files report no size, so they are read to their end.
public enum SystemFiles {
    /// A whole file.
    /// - Throws: ``SystemCallError`` for the `open` or `read` that failed.
    public static func read(_ path: String) throws(SystemCallError) -> [UInt8] {
        let descriptor = try SystemCallError.naming("open") { () throws(Errno) in try SystemCall.open(path, O_RDONLY) }
        defer { SystemCall.close(descriptor) }
        return try readToEnd(descriptor)
    }

    /// What is left to read of an open file, to its end.
    /// - Throws: ``SystemCallError`` for the `read` that failed.
    public static func readToEnd(_ descriptor: Int32) throws(SystemCallError) -> [UInt8] {
        try SystemCallError.naming("read") { () throws(Errno) in try SystemCall.readToEnd(descriptor) }
    }

    /// The name of a user (`getpwuid_r`), or nil when the user database does not know it.
    public static func userName(_ uid: uid_t) -> String? { SystemCall.userName(uid) }

    /// The user this process acts as (`geteuid`).
    public static var effectiveUser: uid_t { SystemCall.effectiveUser }

    /// The names in a folder but "." and "..", in the order the kernel lists them; none if the
    /// folder cannot be read.
    public static func names(in directory: String) -> [String] {
        (try? SystemCall.names(in: directory)) ?? []
    }
}

/// A system call failed.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The call: `open`, `read`, `write`.
    public var call: String
    /// What it failed with.
    public var errno: Errno

    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(errno.message)" }

    /// Runs `body`, naming the call in the ``SystemCallError`` it throws.
    public static func naming<Result>(_ call: String, _ body: () throws(Errno) -> Result) throws(SystemCallError) -> Result {
        do {
            return try body()
        } catch {
            throw SystemCallError(call: call, errno: error)
        }
    }
}
