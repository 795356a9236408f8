import CQREncode
#if canImport(Glibc)
import Glibc
#endif

// Every libqrencode call of Switchboard goes through this file.

/// libqrencode, as the setup payload's QR code uses it.
enum LibQREncode {
    /// The modules of the smallest QR code symbol holding `text` at error correction level
    /// `level` (`QRcode_encodeString`, case-sensitive, 8-bit mode where alphanumeric does not
    /// fit; `QRcode_free`): `width` × `width` values, row after row, true for a dark module.
    static func encode(_ text: String, level: QRCode.ErrorCorrection) throws(QRCodeError) -> (width: Int, modules: [Bool]) {
        let eclevel: QRecLevel = switch level {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
        guard let code = QRcode_encodeString(text, 0, eclevel, QR_MODE_8, 1) else {
            let error = errno
            throw QRCodeError(text: text, detail: error == ERANGE
                ? "too long for a QR code (at most 2953 bytes at level L)"
                : "QRcode_encodeString failed (errno \(error)); libqrencode4 is installed with Switchboard: check that it is intact")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        return (width, data.map { $0 & 1 == 1 })
    }
}
