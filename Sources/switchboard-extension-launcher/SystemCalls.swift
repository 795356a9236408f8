#if canImport(Glibc)
import Glibc
#endif

/// What the launcher reads of its own process and the kernel's constants Swift does not see.
/// (Its system calls go through ``SystemCall``.)
enum SystemCalls {
    /// `POLLRDHUP`: the other end of a stream socket closed or shut down writing (Linux; behind
    /// `_GNU_SOURCE`, which Swift's Glibc module does not see).
    static let pollReadHangUp: Int16 = 0x2000

    /// The systemd unit this process runs in, from its cgroup (`…/switchboard-extension@3-1234-998.service`).
    static func ownUnit() -> String? {
        guard let file = fopen("/proc/self/cgroup", "re") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // cgroup v2: "0::/system.slice/system-switchboard\x2dextension.slice/switchboard-extension@….service"
            guard line.hasPrefix("0::"), let last = line.split(separator: "/").last, last.hasSuffix(".service") else { continue }
            return String(last)
        }
        return nil
    }
}
