/// ChaCha20-Poly1305 (RFC 8439) as HAP uses it, computed by libcrypto
/// (`EVP_chacha20_poly1305`): a 32-byte key, a 12-byte nonce, a 16-byte tag after the
/// ciphertext.
public enum ChaChaPoly {
    /// The ciphertext of `plaintext` followed by its 16-byte tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: HAPNonce, authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try LibCrypto.chaCha20Poly1305Seal(key: key, nonce: nonce.bytes, plaintext: plaintext, aad: aad)
    }

    /// The plaintext of `sealed` (ciphertext and tag); throws `.authenticationFailed` when the
    /// tag does not match.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: HAPNonce, authenticating aad: [UInt8] = []) throws -> [UInt8] {
        try LibCrypto.chaCha20Poly1305Open(key: key, nonce: nonce.bytes, sealed: sealed, aad: aad)
    }
}

/// A 12-byte ChaCha20-Poly1305 nonce in HAP's two forms.
public struct HAPNonce: Sendable, Equatable {
    /// The 12 bytes.
    public let bytes: [UInt8]

    /// Any 12 bytes (as RFC 8439's test vectors use).
    public init(bytes: [UInt8]) throws {
        guard bytes.count == 12 else {
            throw CryptoError(code: .invalidInput, call: "HAPNonce", detail: "expected a 12-byte nonce, got \(bytes.count) bytes")
        }
        self.bytes = bytes
    }

    /// A pairing message's nonce: 4 zero bytes, then the 8 ASCII bytes of `label`
    /// ("PS-Msg05", "PV-Msg02"…).
    public static func pairing(_ label: StaticString) -> HAPNonce {
        let text = label.withUTF8Buffer { Array($0) }
        precondition(text.count == 8, "a HAP pairing nonce label is 8 ASCII bytes")
        return try! HAPNonce(bytes: [0, 0, 0, 0] + text)
    }

    /// A session frame's nonce: 4 zero bytes, then the frame counter as 8 bytes little-endian.
    public static func session(counter: UInt64) -> HAPNonce {
        try! HAPNonce(bytes: [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * UInt64($0))) })
    }
}
