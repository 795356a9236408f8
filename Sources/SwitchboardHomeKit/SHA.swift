/// Message digests, computed by libcrypto (`EVP_Digest*`).
public enum SHA: Sendable {
    case sha1, sha256, sha512

    var libCrypto: LibCrypto.Digest {
        switch self {
        case .sha1: .sha1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }

    /// The digest of the concatenation of `parts`.
    public func hash(_ parts: [UInt8]...) throws -> [UInt8] { try LibCrypto.digest(libCrypto, parts) }

    /// The digest of the concatenation of `parts`.
    public func hash(concatenating parts: [[UInt8]]) throws -> [UInt8] { try LibCrypto.digest(libCrypto, parts) }
}
