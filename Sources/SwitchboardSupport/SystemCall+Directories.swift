#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// A directory stream (`DIR *`) over an open directory descriptor (`fdopendir`), which takes
    /// the descriptor over: ``closeDirectoryStream(_:)`` closes both.
    public static func directoryStream(_ descriptor: CInt) throws(Errno) -> OpaquePointer {
        guard let stream = fdopendir(descriptor) else { throw Errno.current }
        return stream
    }

    /// The names in a folder but "." and "..", in the order the kernel lists them (`opendir`,
    /// `readdir`, `closedir`).
    public static func names(in directory: String) throws(Errno) -> [String] {
        guard let stream = opendir(directory) else { throw Errno.current }
        defer { closedir(stream) }
        return names(in: stream)
    }

    /// The names in a directory stream but "." and "..", read from its start again (`rewinddir`,
    /// then `readdir` to the end); opens no descriptor.
    public static func names(in stream: OpaquePointer) -> [String] {
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Closes a directory stream and its descriptor (`closedir`).
    public static func closeDirectoryStream(_ stream: OpaquePointer) {
        _ = closedir(stream)
    }
}
