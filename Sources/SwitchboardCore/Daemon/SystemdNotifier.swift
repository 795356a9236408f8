#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tells systemd how the service is doing (`Type=notify`): READY, STOPPING, WATCHDOG pings.
/// Sends one datagram per message to `$NOTIFY_SOCKET`; does nothing outside systemd.
public struct SystemdNotifier: Sendable {
    let socketPath: String?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The watchdog interval systemd asked for (`WatchdogSec=`), if any: ping at half of it.
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let micros = Int64(text), micros > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return nil }
        return .microseconds(micros)
    }

    /// Sends `READY=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`, newline-separated.
    @discardableResult
    public func notify(_ message: String) -> Bool {
        guard let socketPath else { return false }
        guard let descriptor = try? SystemCall.unixDatagramSocket() else { return false }
        defer { SystemCall.close(descriptor) }
        guard let address = UnixSocketAddress(path: socketPath) else { return false }
        let bytes = Array(message.utf8)
        return (try? SystemCall.send(descriptor, bytes, to: address)) == bytes.count
    }
}
