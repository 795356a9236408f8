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

    /// The names in a directory stream, read from its start again (`rewinddir`, then `readdir`
    /// to the end), without "." and ".."; opens no descriptor.
    public static func names(in stream: OpaquePointer) -> [String] {
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Closes a directory stream and its descriptor (`closedir`).
    public static func closeDirectoryStream(_ stream: OpaquePointer) {
        _ = closedir(stream)
    }
}
