#if canImport(Glibc)
import Glibc
#endif

/// Whether this process (and so, in the sanitizer stage, every daemon and CLI it starts, built
/// alike) runs under AddressSanitizer or ThreadSanitizer. Their quarantine and shadow memory make
/// resident-memory figures meaningless: a test bounds memory only when this is false, and keeps
/// every other check.
public enum Sanitizers {
    public static let active = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil
}
