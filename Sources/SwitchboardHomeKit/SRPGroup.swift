/// An SRP-6a group (a safe prime N and generator g, RFC 5054 Appendix A) with the hash the
/// protocol runs on. HAP's pair-setup uses the 3072-bit group with SHA-512; RFC 5054's test
/// vectors use the 1024-bit group with SHA-1, through the same code.
public struct SRPGroup: Sendable {
    /// N, big-endian.
    public let prime: [UInt8]
    /// g, big-endian.
    public let generator: [UInt8]
    /// H.
    public let hash: SHA

    public init(prime: [UInt8], generator: [UInt8], hash: SHA) {
        self.prime = prime
        self.generator = generator
        self.hash = hash
    }

    /// HAP's group: RFC 5054's 3072-bit group (g = 5) with SHA-512.
    public static let hap = SRPGroup(prime: hexBytes(rfc5054Prime3072), generator: [5], hash: .sha512)

    /// RFC 5054's 1024-bit group (g = 2) with SHA-1: the group of its Appendix B test vectors.
    public static let rfc5054TestGroup = SRPGroup(prime: hexBytes(rfc5054Prime1024), generator: [2], hash: .sha1)
}

/// RFC 5054 Appendix A, the 1024-bit group.
private let rfc5054Prime1024 = """
    EEAF0AB9ADB38DD69C33F80AFA8FC5E86072618775FF3C0B9EA2314C9C256576D674DF7496EA81D3383B4813D692C6E0E0D5D8E2\
    50B98BE48E495C1D6089DAD15DC7D7B46154D6B6CE8EF4AD69B15D4982559B297BCF1885C529F566660E57EC68EDBC3C05726CC0\
    2FD4CBF4976EAA9AFD5138FE8376435B9FC61D2FC0EB06E3
    """

/// RFC 5054 Appendix A, the 3072-bit group.
private let rfc5054Prime3072 = """
    FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD\
    3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F\
    24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552\
    BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF0\
    6F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64EC\
    FB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A\
    0864D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D1\
    20A93AD2CAFFFFFFFFFFFFFFFF
    """

/// The bytes of a hexadecimal constant (whitespace ignored).
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.unicodeScalars.compactMap { Int(String($0), radix: 16) }
    precondition(digits.count % 2 == 0, "an even number of hexadecimal digits")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) }
}
