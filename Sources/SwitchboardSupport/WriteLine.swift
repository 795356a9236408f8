#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes `line` and a newline to a blocking descriptor (standard output or error), retrying
/// short writes and EINTR; gives up quietly if the descriptor is gone.
public func writeLine(_ line: String, to descriptor: Int32) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
    }
}
