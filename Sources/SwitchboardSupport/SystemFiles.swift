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
