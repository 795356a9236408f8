/// An X25519 key (RFC 7748) for one pair-verify: the ephemeral Curve25519 key whose shared
/// secret the session keys come from. libcrypto's `EVP_PKEY_X25519`.
public final class X25519PrivateKey: Sendable {
    private let key: EVPKey

    /// A new random key (32 bytes from `RAND_bytes`, clamped by libcrypto).
    public convenience init() throws {
        try self.init(rawRepresentation: LibCrypto.randomBytes(32))
    }

    /// The key whose 32 private bytes are `rawRepresentation`.
    public init(rawRepresentation: [UInt8]) throws {
        key = try EVPKey(kind: .x25519, rawPrivateKey: rawRepresentation)
    }

    /// The 32-byte public key (the u-coordinate).
    public func publicKey() throws -> [UInt8] { try key.rawPublicKey() }

    /// The 32-byte shared secret with the peer's public key; throws `.invalidInput` for a
    /// key of the wrong length or of small order.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws -> [UInt8] {
        try key.deriveSharedSecret(with: EVPKey(kind: .x25519, rawPublicKey: peerPublicKey))
    }
}
