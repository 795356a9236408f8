/// A failure of a cryptographic step: which libcrypto call (or check) failed, what was expected,
/// and OpenSSL's own reason when it gave one.
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, in kinds a caller can act on.
    public enum Code: Equatable, Sendable {
        /// libcrypto refused or failed a call (out of memory, a provider missing, a bad parameter).
        case library
        /// An input had the wrong length or form (a key that is not 32 bytes, a nonce not 12).
        case invalidInput
        /// A tag, a signature or a proof did not verify: the data was tampered with or the key
        /// was wrong.
        case authenticationFailed
    }

    public var code: Code
    /// The libcrypto function (or the check) that failed, e.g. `EVP_DigestSign`.
    public var call: String
    /// What was expected, in words.
    public var detail: String
    /// OpenSSL's error queue entry (`ERR_get_error`), 0 when there was none.
    public var openSSLError: UInt

    public init(code: Code, call: String, detail: String, openSSLError: UInt = 0) {
        self.code = code
        self.call = call
        self.detail = detail
        self.openSSLError = openSSLError
    }

    public var description: String {
        var text = "\(call): \(detail)"
        if openSSLError != 0 { text += " (OpenSSL error \(LibCrypto.errorString(openSSLError)))" }
        switch code {
        case .library:
            text += "; libcrypto (OpenSSL 3) is installed with Switchboard: check that libssl3 is intact"
        case .invalidInput, .authenticationFailed:
            break
        }
        return text
    }
}
