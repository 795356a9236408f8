/// The server (accessory) side of SRP-6a as HAP's pair-setup runs it, composed of libcrypto's
/// BIGNUM arithmetic and digests:
///
///     k = H(N | PAD(g))           x = H(s | H(I | ":" | P))      v = g^x mod N
///     B = k·v + g^b mod N         u = H(PAD(A) | PAD(B))         S = (A·v^u)^b mod N
///     K = H(S)   M1 = H(H(N) xor H(g) | H(I) | s | A | B | K)   M2 = H(A | M1 | K)
///
/// A, B and S are always as long as N (PAD), in the hashes and on the wire, as HomeKit
/// controllers compute them (aiohomekit's SRP client pads A and S): a key or secret with a
/// leading zero byte then hashes the same on both sides. One instance serves one attempt: it
/// keeps the secret exponent b.
public final class SRPServer {
    public let group: SRPGroup
    /// The user name (HAP: "Pair-Setup").
    public let username: [UInt8]
    /// s, the salt.
    public let salt: [UInt8]
    /// B, the server's public key (big-endian, as long as N).
    public let publicKey: [UInt8]

    let context: BigNumberContext
    let prime: BigNumber
    let generator: BigNumber
    let multiplier: BigNumber
    let privateKeyX: BigNumber
    let verifier: BigNumber
    let secretExponent: BigNumber
    let serverPublicKey: BigNumber

    /// The scrambling parameter u, the premaster secret S and the session key K, once the
    /// client's public key arrived.
    private(set) var scrambler: BigNumber?
    private(set) var premasterSecret: BigNumber?
    private(set) var sessionKey: [UInt8]?
    private var clientPublicKey: [UInt8]?

    /// A server for `username` and `password` with `salt`, its secret exponent `b` random
    /// (32 bytes from `RAND_bytes`) unless given (known-answer tests give it).
    public init(username: [UInt8], password: [UInt8], salt: [UInt8], group: SRPGroup = .hap, secretExponent b: [UInt8]? = nil) throws {
        self.group = group
        self.username = username
        self.salt = salt
        context = try BigNumberContext()
        prime = try BigNumber(bytes: group.prime)
        generator = try BigNumber(bytes: group.generator)
        let width = group.prime.count
        multiplier = try BigNumber(bytes: group.hash.hash(group.prime, generator.bytes(paddedTo: width)))
        let inner = try group.hash.hash(username, Array(":".utf8), password)
        privateKeyX = try BigNumber(bytes: group.hash.hash(salt, inner))
        verifier = try generator.power(privateKeyX, modulo: prime, context)
        secretExponent = try BigNumber(bytes: b ?? LibCrypto.randomBytes(32))
        let kv = try multiplier.times(verifier, modulo: prime, context)
        serverPublicKey = try kv.plus(generator.power(secretExponent, modulo: prime, context), modulo: prime, context)
        publicKey = try serverPublicKey.bytes(paddedTo: width)
    }

    /// Takes the client's public key A and computes u, S and K; throws `.invalidInput` when
    /// A mod N is 0 (which would make S predictable).
    public func receiveClientPublicKey(_ a: [UInt8]) throws {
        let width = group.prime.count
        let clientKey = try BigNumber(bytes: a)
        guard !(try clientKey.modulo(prime, context)).isZero else {
            throw CryptoError(code: .invalidInput, call: "SRP-6a", detail: "the client's public key A is 0 mod N: refused")
        }
        let u = try BigNumber(bytes: group.hash.hash(clientKey.bytes(paddedTo: width), serverPublicKey.bytes(paddedTo: width)))
        guard !u.isZero else {
            throw CryptoError(code: .invalidInput, call: "SRP-6a", detail: "the scrambling parameter u is 0: refused")
        }
        let base = try clientKey.times(verifier.power(u, modulo: prime, context), modulo: prime, context)
        let secret = try base.power(secretExponent, modulo: prime, context)
        scrambler = u
        premasterSecret = secret
        sessionKey = try group.hash.hash(secret.bytes(paddedTo: width))
        clientPublicKey = try clientKey.bytes(paddedTo: width)
    }

    /// The client's proof M1 expected for the public keys and K.
    func expectedClientProof() throws -> [UInt8] {
        guard let sessionKey, let clientPublicKey else {
            throw CryptoError(code: .invalidInput, call: "SRP-6a", detail: "expected the client's public key before its proof")
        }
        let hashN = try group.hash.hash(prime.bytes)
        let hashG = try group.hash.hash(generator.bytes)
        let xored = zip(hashN, hashG).map { $0 ^ $1 }
        return try group.hash.hash(xored, group.hash.hash(username), salt, clientPublicKey, publicKey, sessionKey)
    }

    /// Checks the client's proof M1 (in constant time) and returns the server's proof M2, or
    /// nil when M1 is wrong (a wrong setup code).
    public func verifyClientProof(_ proof: [UInt8]) throws -> [UInt8]? {
        let expected = try expectedClientProof()
        guard constantTimeEqual(expected, proof), let clientPublicKey, let sessionKey else { return nil }
        return try group.hash.hash(clientPublicKey, proof, sessionKey)
    }

    /// K, the shared session key, once the client's public key arrived.
    public var sharedSessionKey: [UInt8]? { sessionKey }
}
