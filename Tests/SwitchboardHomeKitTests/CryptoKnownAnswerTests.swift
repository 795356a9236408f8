@testable import SwitchboardHomeKit
import Testing

/// The primitives against the RFCs' published vectors.
@Suite struct CryptoKnownAnswerTests {
    /// RFC 8439 §2.8.2: the AEAD_CHACHA20_POLY1305 example.
    @Test func chaChaPolySealsRFC8439Example() throws {
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let aad = hexBytes("50515253c0c1c2c3c4c5c6c7")
        let key = hexBytes("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
        let nonce = try HAPNonce(bytes: hexBytes("07000000" + "4041424344454647"))
        let ciphertext = hexBytes("""
            d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36\
            92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116
            """)
        let tag = hexBytes("1ae10b594f09e26a7e902ecbd0600691")
        let sealed = try ChaChaPoly.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed == ciphertext + tag)
        #expect(try ChaChaPoly.open(sealed, key: key, nonce: nonce, authenticating: aad) == plaintext)
    }

    @Test func chaChaPolyRefusesAlteredCiphertextOrData() throws {
        let key = hexBytes("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
        let sealed = try ChaChaPoly.seal(Array("relay on".utf8), key: key, nonce: .session(counter: 7), authenticating: [1, 2])
        var altered = sealed
        altered[0] ^= 1
        for (data, aad, nonce) in [(altered, [UInt8]([1, 2]), HAPNonce.session(counter: 7)),
                                   (sealed, [1, 3], .session(counter: 7)),
                                   (sealed, [1, 2], .session(counter: 8))] {
            #expect(throws: CryptoError.self) { try ChaChaPoly.open(data, key: key, nonce: nonce, authenticating: aad) }
            do { _ = try ChaChaPoly.open(data, key: key, nonce: nonce, authenticating: aad) } catch let error as CryptoError {
                #expect(error.code == .authenticationFailed)
            }
        }
    }

    @Test func hapNoncesAreZeroPaddedLabelsAndLittleEndianCounters() {
        #expect(HAPNonce.pairing("PS-Msg05").bytes == [0, 0, 0, 0] + Array("PS-Msg05".utf8))
        #expect(HAPNonce.session(counter: 0x0102).bytes == [0, 0, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0])
    }

    /// RFC 8032 §7.1, TEST 1 (empty message) and TEST 2 (one byte).
    @Test(arguments: [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ])
    func ed25519SignsRFC8032Vectors(secret: String, publicKey: String, message: String, signature: String) throws {
        let key = try Ed25519PrivateKey(rawRepresentation: hexBytes(secret))
        #expect(try key.publicKey().rawRepresentation == hexBytes(publicKey))
        #expect(try key.signature(for: hexBytes(message)) == hexBytes(signature))
        let verifier = try Ed25519PublicKey(rawRepresentation: hexBytes(publicKey))
        #expect(try verifier.isValidSignature(hexBytes(signature), for: hexBytes(message)))
        var forged = hexBytes(signature)
        forged[5] ^= 0x40
        #expect(try !verifier.isValidSignature(forged, for: hexBytes(message)))
        #expect(try !verifier.isValidSignature(hexBytes(signature), for: hexBytes(message) + [0]))
    }

    /// RFC 7748 §6.1: Alice's and Bob's keys and their shared secret.
    @Test func x25519AgreesOnRFC7748Secret() throws {
        let alice = try X25519PrivateKey(rawRepresentation: hexBytes("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519PrivateKey(rawRepresentation: hexBytes("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(try alice.publicKey() == hexBytes("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        #expect(try bob.publicKey() == hexBytes("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        let shared = hexBytes("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try alice.sharedSecret(with: bob.publicKey()) == shared)
        #expect(try bob.sharedSecret(with: alice.publicKey()) == shared)
    }

    @Test func x25519RefusesASmallOrderPeerKey() throws {
        let key = try X25519PrivateKey()
        #expect(throws: CryptoError.self) { try key.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
    }

    /// RFC 5869 A.1 and A.3 (SHA-256; the function is the same for SHA-512, the digest a
    /// parameter).
    @Test(arguments: [
        ("000102030405060708090a0b0c", "f0f1f2f3f4f5f6f7f8f9",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        ("", "", "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ])
    func hkdfDerivesRFC5869Vectors(salt: String, info: String, okm: String) throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        #expect(try HKDF.deriveKey(.sha256, inputKeyMaterial: ikm, salt: hexBytes(salt), info: hexBytes(info), outputByteCount: 42) == hexBytes(okm))
    }

    @Test func sha512OfABC() throws {
        // FIPS 180-2, Appendix C.1.
        #expect(try SHA.sha512.hash(Array("abc".utf8)) == hexBytes("""
            ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f
            """))
    }
}
