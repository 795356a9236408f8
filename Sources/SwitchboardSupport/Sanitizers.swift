#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this process runs under AddressSanitizer or ThreadSanitizer (in the sanitizer stage,
/// the tests and every daemon and CLI they start are built alike). Their quarantine and shadow
/// memory reserve terabytes of address space and inflate resident memory: an address-space limit
/// cannot be set under them, and a resident-memory figure says nothing there.
public enum Sanitizers {
    public static let active = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil
}
