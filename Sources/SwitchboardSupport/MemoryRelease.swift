#if canImport(Glibc)
import Glibc
#endif

/// Gives memory the process freed back to the system (glibc's `malloc_trim`), for after a burst:
/// glibc otherwise keeps freed heap pages mapped, and a board's daemon would stay at its
/// high-water mark for good.
public enum MemoryRelease {
    private typealias Trim = @convention(c) (Int) -> Int32

    // `malloc_trim` is not in the Glibc module (malloc.h); it is looked up once, with its C
    // calling convention, and is absent on other C libraries.
    private static let trim: Trim? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()

    /// Returns free heap memory to the system; does nothing where the C library cannot.
    public static func releaseFreeMemory() { _ = trim?(0) }
}
