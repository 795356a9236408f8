#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes all of `bytes` to a blocking descriptor, retrying short writes and EINTR.
/// - Returns: nil once everything is written, or the errno of the write that failed.
@discardableResult
public func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written > 0 {
            offset += written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return written < 0 ? errno : EIO
        }
    }
    return nil
}

/// Writes `line` and a newline to a blocking descriptor (standard output or error), retrying
/// short writes and EINTR; gives up quietly if the descriptor is gone.
public func writeLine(_ line: String, to descriptor: Int32) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    writeAll(bytes, to: descriptor)
}
