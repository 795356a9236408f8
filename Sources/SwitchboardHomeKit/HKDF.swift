/// HKDF (RFC 5869), extract then expand, computed by libcrypto (`EVP_PKEY_HKDF`).
public enum HKDF {
    /// The digest HKDF runs on; HAP uses SHA-512.
    public enum Digest: Sendable {
        case sha256, sha512

        var libCrypto: LibCrypto.Digest {
            switch self {
            case .sha256: .sha256
            case .sha512: .sha512
            }
        }
    }

    /// `count` bytes of key material from `key`, `salt` and `info`.
    public static func deriveKey(
        _ digest: Digest = .sha512, inputKeyMaterial key: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount count: Int
    ) throws -> [UInt8] {
        try LibCrypto.hkdf(digest.libCrypto, key: key, salt: salt, info: info, count: count)
    }

    /// HAP's derivation: HKDF-SHA512 with ASCII salt and info, 32 bytes.
    public static func hapKey(_ key: [UInt8], salt: String, info: String) throws -> [UInt8] {
        try deriveKey(.sha512, inputKeyMaterial: key, salt: Array(salt.utf8), info: Array(info.utf8), outputByteCount: 32)
    }
}
