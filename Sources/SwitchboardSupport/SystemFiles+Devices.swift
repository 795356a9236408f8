#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemFiles {
    /// The device number (`st_rdev`) of the character device at `path`, following links: two
    /// paths with the same number are the same device. Nil when the path is not a character device.
    /// - Throws: ``SystemCallError`` for the `stat` that failed (`ENOENT`: no such file).
    public static func characterDeviceNumber(at path: String) throws(SystemCallError) -> UInt64? {
        let status = try SystemCallError.naming("stat") { () throws(Errno) in try SystemCall.stat(path) }
        guard status.st_mode & S_IFMT == S_IFCHR else { return nil }
        return UInt64(status.st_rdev)
    }
}
