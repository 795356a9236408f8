import CCrypto

// Every libcrypto call of Switchboard goes through this file: the rest of the code never sees a
// raw C call or a C handle. Each handle has one owner (`EVPKey`, `BigNumber`,
// `BigNumberContext`, and the scoped contexts below), freed once in `deinit` or before the
// function that made it returns.

/// libcrypto's primitives, as the HomeKit Accessory Protocol uses them.
enum LibCrypto {
    /// A message digest, named as libcrypto names it.
    enum Digest: Sendable {
        case sha1, sha256, sha512

        /// `EVP_sha1`, `EVP_sha256` or `EVP_sha512`.
        fileprivate var md: OpaquePointer? {
            switch self {
            case .sha1: EVP_sha1()
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        }

        /// The digest's length in bytes.
        var count: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha512: 64
            }
        }
    }

    /// OpenSSL's text for an error code (`ERR_error_string_n`).
    static func errorString(_ code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The error for a failed call, with the oldest entry of OpenSSL's error queue (which is then
    /// cleared, so that it does not show up in the next error).
    static func failure(_ call: String, _ detail: String, code: CryptoError.Code = .library) -> CryptoError {
        let queued = ERR_get_error()
        ERR_clear_error()
        return CryptoError(code: code, call: call, detail: detail, openSSLError: queued)
    }

    /// `count` bytes from libcrypto's CSPRNG (`RAND_bytes`).
    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            throw failure("RAND_bytes", "expected \(count) random bytes from the system's generator")
        }
        return bytes
    }

    /// The digest of the concatenated `parts` (`EVP_DigestInit_ex`, `EVP_DigestUpdate`,
    /// `EVP_DigestFinal_ex`).
    static func digest(_ digest: Digest, _ parts: [[UInt8]]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw failure("EVP_MD_CTX_new", "expected a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, digest.md, nil) == 1 else {
            throw failure("EVP_DigestInit_ex", "expected \(digest) to be available")
        }
        for part in parts where !part.isEmpty {
            guard EVP_DigestUpdate(context, part, part.count) == 1 else {
                throw failure("EVP_DigestUpdate", "expected to hash \(part.count) bytes")
            }
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1 else {
            throw failure("EVP_DigestFinal_ex", "expected a \(digest) digest")
        }
        return Array(output.prefix(Int(length)))
    }

    /// HKDF (RFC 5869) with the given digest, extract then expand (`EVP_PKEY_HKDF`). An empty
    /// salt is HKDF's default salt (as many zero bytes as the digest is long).
    static func hkdf(_ digest: Digest, key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else {
            throw failure("EVP_PKEY_CTX_new_id", "expected an HKDF context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_CTX_set_hkdf_md(context, digest.md) == 1 else {
            throw failure("EVP_PKEY_CTX_set_hkdf_md", "expected HKDF with \(digest)")
        }
        if !salt.isEmpty, EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) != 1 {
            throw failure("EVP_PKEY_CTX_set1_hkdf_salt", "expected to set a \(salt.count)-byte salt")
        }
        guard EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1 else {
            throw failure("EVP_PKEY_CTX_set1_hkdf_key", "expected a non-empty input key (got \(key.count) bytes)", code: .invalidInput)
        }
        if !info.isEmpty, EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) != 1 {
            throw failure("EVP_PKEY_CTX_add1_hkdf_info", "expected to set \(info.count) bytes of info")
        }
        var output = [UInt8](repeating: 0, count: count)
        var length = count
        guard EVP_PKEY_derive(context, &output, &length) == 1, length == count else {
            throw failure("EVP_PKEY_derive", "expected \(count) bytes of HKDF output")
        }
        return output
    }

    /// ChaCha20-Poly1305 (RFC 8439) encryption: the ciphertext followed by its 16-byte tag
    /// (`EVP_chacha20_poly1305`).
    static func chaCha20Poly1305Seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        try checkAEADInputs(key: key, nonce: nonce)
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new", "expected a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw failure("EVP_EncryptInit_ex", "expected ChaCha20-Poly1305 with a 32-byte key and 12-byte nonce")
        }
        var length: Int32 = 0
        if !aad.isEmpty, EVP_EncryptUpdate(context, nil, &length, aad, Int32(aad.count)) != 1 {
            throw failure("EVP_EncryptUpdate", "expected to authenticate \(aad.count) bytes of additional data")
        }
        var output = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &output, &length, plaintext, Int32(plaintext.count)) == 1 else {
                throw failure("EVP_EncryptUpdate", "expected to encrypt \(plaintext.count) bytes")
            }
            written = Int(length)
        }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard finished == 1 else { throw failure("EVP_EncryptFinal_ex", "expected to finish the encryption") }
        written += Int(length)
        let tagged = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, buffer.baseAddress! + written)
        }
        guard tagged == 1 else { throw failure("EVP_CIPHER_CTX_ctrl", "expected the 16-byte Poly1305 tag") }
        return Array(output.prefix(written + 16))
    }

    /// ChaCha20-Poly1305 decryption of a ciphertext followed by its 16-byte tag; throws
    /// `.authenticationFailed` when the tag does not match (`EVP_chacha20_poly1305`).
    static func chaCha20Poly1305Open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        try checkAEADInputs(key: key, nonce: nonce)
        guard sealed.count >= 16 else {
            throw CryptoError(code: .authenticationFailed, call: "ChaCha20-Poly1305",
                              detail: "expected at least the 16-byte tag, got \(sealed.count) bytes")
        }
        let ciphertext = Array(sealed.dropLast(16))
        var tag = Array(sealed.suffix(16))
        guard let context = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new", "expected a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw failure("EVP_DecryptInit_ex", "expected ChaCha20-Poly1305 with a 32-byte key and 12-byte nonce")
        }
        var length: Int32 = 0
        if !aad.isEmpty, EVP_DecryptUpdate(context, nil, &length, aad, Int32(aad.count)) != 1 {
            throw failure("EVP_DecryptUpdate", "expected to authenticate \(aad.count) bytes of additional data")
        }
        var output = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written = 0
        if !ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &output, &length, ciphertext, Int32(ciphertext.count)) == 1 else {
                throw failure("EVP_DecryptUpdate", "expected to decrypt \(ciphertext.count) bytes")
            }
            written = Int(length)
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, &tag) == 1 else {
            throw failure("EVP_CIPHER_CTX_ctrl", "expected to set the 16-byte Poly1305 tag")
        }
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + written, &length)
        }
        guard finished == 1 else {
            throw failure("EVP_DecryptFinal_ex", "the Poly1305 tag does not match: the data was altered or the key is wrong",
                          code: .authenticationFailed)
        }
        return Array(output.prefix(written + Int(length)))
    }

    private static func checkAEADInputs(key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == 32 else {
            throw CryptoError(code: .invalidInput, call: "ChaCha20-Poly1305", detail: "expected a 32-byte key, got \(key.count) bytes")
        }
        guard nonce.count == 12 else {
            throw CryptoError(code: .invalidInput, call: "ChaCha20-Poly1305", detail: "expected a 12-byte nonce, got \(nonce.count) bytes")
        }
    }
}

/// An EVP_PKEY (an Ed25519 or X25519 key), owned: freed once with `EVP_PKEY_free`.
///
/// `@unchecked Sendable`: the key is never changed after `init`, and every use (signing,
/// verifying, deriving) goes through its own short-lived libcrypto context, which OpenSSL 3
/// allows from several threads at once.
final class EVPKey: @unchecked Sendable {
    /// The two key types HAP uses.
    enum Kind {
        case ed25519, x25519

        var id: Int32 {
            switch self {
            case .ed25519: EVP_PKEY_ED25519
            case .x25519: EVP_PKEY_X25519
            }
        }

        var name: String {
            switch self {
            case .ed25519: "Ed25519"
            case .x25519: "X25519"
            }
        }
    }

    private let pointer: OpaquePointer
    let kind: Kind

    private init(pointer: OpaquePointer, kind: Kind) {
        self.pointer = pointer
        self.kind = kind
    }

    deinit { EVP_PKEY_free(pointer) }

    /// A private key from its 32 raw bytes (`EVP_PKEY_new_raw_private_key`).
    convenience init(kind: Kind, rawPrivateKey: [UInt8]) throws {
        guard rawPrivateKey.count == 32 else {
            throw CryptoError(code: .invalidInput, call: "EVP_PKEY_new_raw_private_key",
                              detail: "expected a 32-byte \(kind.name) private key, got \(rawPrivateKey.count) bytes")
        }
        guard let pointer = EVP_PKEY_new_raw_private_key(kind.id, nil, rawPrivateKey, 32) else {
            throw LibCrypto.failure("EVP_PKEY_new_raw_private_key", "expected a \(kind.name) private key", code: .invalidInput)
        }
        self.init(pointer: pointer, kind: kind)
    }

    /// A public key from its 32 raw bytes (`EVP_PKEY_new_raw_public_key`).
    convenience init(kind: Kind, rawPublicKey: [UInt8]) throws {
        guard rawPublicKey.count == 32 else {
            throw CryptoError(code: .invalidInput, call: "EVP_PKEY_new_raw_public_key",
                              detail: "expected a 32-byte \(kind.name) public key, got \(rawPublicKey.count) bytes")
        }
        guard let pointer = EVP_PKEY_new_raw_public_key(kind.id, nil, rawPublicKey, 32) else {
            throw LibCrypto.failure("EVP_PKEY_new_raw_public_key", "expected a \(kind.name) public key", code: .invalidInput)
        }
        self.init(pointer: pointer, kind: kind)
    }

    /// The 32-byte raw public key (`EVP_PKEY_get_raw_public_key`).
    func rawPublicKey() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(pointer, &bytes, &length) == 1, length == 32 else {
            throw LibCrypto.failure("EVP_PKEY_get_raw_public_key", "expected the 32-byte \(kind.name) public key")
        }
        return bytes
    }

    /// The 32-byte raw private key (`EVP_PKEY_get_raw_private_key`), for storing it.
    func rawPrivateKey() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_private_key(pointer, &bytes, &length) == 1, length == 32 else {
            throw LibCrypto.failure("EVP_PKEY_get_raw_private_key", "expected a 32-byte \(kind.name) private key")
        }
        return bytes
    }

    /// An Ed25519 signature of `message` (`EVP_DigestSignInit`, `EVP_DigestSign`).
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new", "expected a signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, pointer) == 1 else {
            throw LibCrypto.failure("EVP_DigestSignInit", "expected an Ed25519 private key")
        }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw LibCrypto.failure("EVP_DigestSign", "expected a 64-byte Ed25519 signature")
        }
        return signature
    }

    /// Whether `signature` is this Ed25519 public key's signature of `message`
    /// (`EVP_DigestVerifyInit`, `EVP_DigestVerify`).
    func verify(_ signature: [UInt8], of message: [UInt8]) throws -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new", "expected a verifying context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, pointer) == 1 else {
            throw LibCrypto.failure("EVP_DigestVerifyInit", "expected an Ed25519 public key")
        }
        let verified = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return verified
    }

    /// The X25519 shared secret with `peer` (`EVP_PKEY_derive`); libcrypto refuses a peer key
    /// of small order (an all-zero secret).
    func deriveSharedSecret(with peer: EVPKey) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else {
            throw LibCrypto.failure("EVP_PKEY_CTX_new", "expected an X25519 derivation context")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else {
            throw LibCrypto.failure("EVP_PKEY_derive_init", "expected an X25519 private key")
        }
        guard EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else {
            throw LibCrypto.failure("EVP_PKEY_derive_set_peer", "expected the peer's X25519 public key", code: .invalidInput)
        }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else {
            throw LibCrypto.failure("EVP_PKEY_derive", "expected a 32-byte X25519 shared secret (the peer's key may be of small order)",
                                    code: .invalidInput)
        }
        return secret
    }
}

/// A BN_CTX, libcrypto's scratch space for BIGNUM arithmetic, owned: freed with `BN_CTX_free`.
final class BigNumberContext {
    fileprivate let pointer: OpaquePointer

    init() throws {
        guard let pointer = BN_CTX_new() else { throw LibCrypto.failure("BN_CTX_new", "expected a BIGNUM context") }
        self.pointer = pointer
    }

    deinit { BN_CTX_free(pointer) }
}

/// A non-negative BIGNUM, owned: cleared and freed once with `BN_clear_free` (it may hold a
/// secret exponent). Every operation makes a new number.
final class BigNumber {
    fileprivate let pointer: OpaquePointer

    private init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { BN_clear_free(pointer) }

    private static func make(_ call: String) throws -> BigNumber {
        guard let pointer = BN_new() else { throw LibCrypto.failure(call, "expected a new BIGNUM") }
        return BigNumber(pointer: pointer)
    }

    /// The number whose big-endian bytes are `bytes` (`BN_bin2bn`).
    convenience init(bytes: [UInt8]) throws {
        guard let pointer = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw LibCrypto.failure("BN_bin2bn", "expected a BIGNUM of \(bytes.count) bytes")
        }
        self.init(pointer: pointer)
    }

    /// Its big-endian bytes without leading zeros (`BN_bn2bin`); zero is no bytes.
    var bytes: [UInt8] {
        var output = [UInt8](repeating: 0, count: (Int(BN_num_bits(pointer)) + 7) / 8)
        _ = BN_bn2bin(pointer, &output)
        return output
    }

    /// Its big-endian bytes left-padded with zeros to `count` (`BN_bn2binpad`).
    func bytes(paddedTo count: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard BN_bn2binpad(pointer, &output, Int32(count)) == Int32(count) else {
            throw LibCrypto.failure("BN_bn2binpad", "expected the number to fit in \(count) bytes", code: .invalidInput)
        }
        return output
    }

    /// Whether it is zero (`BN_is_zero`).
    var isZero: Bool { BN_is_zero(pointer) == 1 }

    /// self mod m (`BN_nnmod`).
    func modulo(_ m: BigNumber, _ context: BigNumberContext) throws -> BigNumber {
        let result = try BigNumber.make("BN_nnmod")
        guard BN_nnmod(result.pointer, pointer, m.pointer, context.pointer) == 1 else {
            throw LibCrypto.failure("BN_nnmod", "expected a non-zero modulus")
        }
        return result
    }

    /// self^exponent mod m (`BN_mod_exp`).
    func power(_ exponent: BigNumber, modulo m: BigNumber, _ context: BigNumberContext) throws -> BigNumber {
        let result = try BigNumber.make("BN_mod_exp")
        guard BN_mod_exp(result.pointer, pointer, exponent.pointer, m.pointer, context.pointer) == 1 else {
            throw LibCrypto.failure("BN_mod_exp", "expected a modular exponentiation")
        }
        return result
    }

    /// self × other mod m (`BN_mod_mul`).
    func times(_ other: BigNumber, modulo m: BigNumber, _ context: BigNumberContext) throws -> BigNumber {
        let result = try BigNumber.make("BN_mod_mul")
        guard BN_mod_mul(result.pointer, pointer, other.pointer, m.pointer, context.pointer) == 1 else {
            throw LibCrypto.failure("BN_mod_mul", "expected a modular multiplication")
        }
        return result
    }

    /// self + other mod m (`BN_mod_add`).
    func plus(_ other: BigNumber, modulo m: BigNumber, _ context: BigNumberContext) throws -> BigNumber {
        let result = try BigNumber.make("BN_mod_add")
        guard BN_mod_add(result.pointer, pointer, other.pointer, m.pointer, context.pointer) == 1 else {
            throw LibCrypto.failure("BN_mod_add", "expected a modular addition")
        }
        return result
    }

    /// self − other mod m (`BN_mod_sub`).
    func minus(_ other: BigNumber, modulo m: BigNumber, _ context: BigNumberContext) throws -> BigNumber {
        let result = try BigNumber.make("BN_mod_sub")
        guard BN_mod_sub(result.pointer, pointer, other.pointer, m.pointer, context.pointer) == 1 else {
            throw LibCrypto.failure("BN_mod_sub", "expected a modular subtraction")
        }
        return result
    }
}

/// Constant-time comparison of two byte strings of equal length (`CRYPTO_memcmp`); different
/// lengths compare unequal.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return CRYPTO_memcmp(a, b, a.count) == 0
}
