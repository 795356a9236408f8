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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemCallError(call: "open", errno: errno) }
        defer { close(descriptor) }
        return try readToEnd(descriptor)
    }

    /// What is left to read of an open file, to its end.
    /// - Throws: ``SystemCallError`` for the `read` that failed.
    public static func readToEnd(_ descriptor: Int32) throws(SystemCallError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SystemCallError(call: "read", errno: errno) }
            guard count > 0 else { return bytes }
            bytes += buffer.prefix(count)
        }
    }

    /// Runs a system call again while it fails with `EINTR`.
    static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// The name of a user (`getpwuid_r`), or nil when the user database does not know it.
    public static func userName(_ uid: uid_t) -> String? {
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The user this process acts as (`geteuid`).
    public static var effectiveUser: uid_t { geteuid() }

    /// The names in a folder but "." and "..", in the order the kernel lists them; none if the
    /// folder cannot be read.
    public static func names(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}

/// A system call failed.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The call: `open`, `read`, `write`.
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
