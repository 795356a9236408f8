/// An Ed25519 signing key (RFC 8032), such as the accessory's long-term key (LTSK) that pairing
/// signs with. The key and its signatures are libcrypto's (`EVP_PKEY_ED25519`).
public final class Ed25519PrivateKey: Sendable {
    private let key: EVPKey

    /// A new random key (its 32-byte seed from `RAND_bytes`).
    public convenience init() throws {
        try self.init(rawRepresentation: LibCrypto.randomBytes(32))
    }

    /// The key whose 32-byte seed (RFC 8032's "secret key") is `rawRepresentation`.
    public init(rawRepresentation: [UInt8]) throws {
        key = try EVPKey(kind: .ed25519, rawPrivateKey: rawRepresentation)
    }

    /// The 32-byte seed, to store the key.
    public func rawRepresentation() throws -> [UInt8] { try key.rawPrivateKey() }

    /// The matching public key.
    public func publicKey() throws -> Ed25519PublicKey {
        try Ed25519PublicKey(rawRepresentation: key.rawPublicKey())
    }

    /// The 64-byte signature of `message`.
    public func signature(for message: [UInt8]) throws -> [UInt8] { try key.sign(message) }
}

/// An Ed25519 public key (a controller's or the accessory's long-term public key, LTPK).
public struct Ed25519PublicKey: Sendable, Equatable {
    /// The 32 bytes of the key.
    public let rawRepresentation: [UInt8]

    /// The key from its 32 bytes; throws `.invalidInput` for another length or a point
    /// libcrypto refuses.
    public init(rawRepresentation: [UInt8]) throws {
        _ = try EVPKey(kind: .ed25519, rawPublicKey: rawRepresentation)
        self.rawRepresentation = rawRepresentation
    }

    /// Whether `signature` is this key's signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) throws -> Bool {
        try EVPKey(kind: .ed25519, rawPublicKey: rawRepresentation).verify(signature, of: message)
    }
}
