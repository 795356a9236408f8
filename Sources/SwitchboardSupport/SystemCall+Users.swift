#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// The names in a folder but "." and "..", in the order the kernel lists them (`opendir`,
    /// `readdir`).
    public static func names(in directory: String) throws(Errno) -> [String] {
        guard let handle = opendir(directory) else { throw Errno.current }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
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
}
