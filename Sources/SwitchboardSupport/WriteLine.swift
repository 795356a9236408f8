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
    try? SystemCall.writeAll(bytes, to: descriptor)
}
