#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many more descriptors this process can open: its open-file limit (`RLIMIT_NOFILE`, soft)
/// less the descriptors open below it, counted in `/proc/self/fd` through a directory held open
/// from the start, so that counting takes no descriptor.
///
/// A process on libdispatch must never run out: on Linux, libdispatch opens a
/// `/proc/<tid>/stat` file for each of its worker threads every second and stops the process
/// (`SIGILL`) when that `open` fails. So what takes descriptors for others (a socket's clients)
/// leaves some free, checking ``free()`` first.
public final class DescriptorHeadroom: Sendable {
    // Invariant: the `DIR *` of /proc/self/fd (nil where it cannot be opened), used holding the
    // lock and closed once, in deinit.
    private let directory: Locked<OpaquePointer?>

    /// Opens `/proc/self/fd`; without `/proc`, ``free()`` answers nil.
    public init() {
        let descriptor = try? SystemCall.open("/proc/self/fd", O_RDONLY | O_DIRECTORY)
        let stream = descriptor.flatMap { descriptor in
            do {
                return try SystemCall.directoryStream(descriptor)
            } catch {
                SystemCall.close(descriptor)
                return nil
            }
        }
        directory = Locked(stream)
    }

    deinit {
        directory.withLock { stream in stream.map(SystemCall.closeDirectoryStream) }
    }

    /// The descriptors this process can open now; nil when it cannot be told (no `/proc`, or no
    /// limit).
    public func free() -> Int? {
        guard let limit = ResourceLimit.current(.files).soft.map({ Int(clamping: $0) }) else { return nil }
        return directory.withLock { stream -> Int? in
            guard let stream else { return nil }
            let open = SystemCall.names(in: stream).lazy.compactMap { Int($0) }.filter { $0 < limit }.count
            return max(0, limit - open)
        }
    }
}
