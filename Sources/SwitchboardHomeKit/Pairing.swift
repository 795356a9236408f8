/// A controller paired with the accessory: its pairing identifier, its long-term public key
/// (LTPK) and whether it is an admin (may add and remove pairings).
public struct Pairing: Sendable, Equatable {
    public var identifier: [UInt8]
    public var publicKey: Ed25519PublicKey
    public var isAdmin: Bool

    public init(identifier: [UInt8], publicKey: Ed25519PublicKey, isAdmin: Bool) {
        self.identifier = identifier
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }
}

/// Where the accessory keeps its pairings and its count of failed pair-setup attempts; both
/// must survive restarts (HAP: after 100 failures the accessory refuses pair-setup for good).
public protocol PairingStore: AnyObject {
    /// Every pairing.
    var pairings: [Pairing] { get }
    /// Adds (or replaces, by identifier) a pairing; throws when it cannot be kept.
    func add(_ pairing: Pairing) throws
    /// Removes the pairing with this identifier (nothing when there is none).
    func remove(identifier: [UInt8])
    /// Failed pair-setup attempts (a wrong setup code) since the accessory was reset.
    var failedPairSetupAttempts: Int { get set }
}

extension PairingStore {
    /// The pairing with this identifier, or nil.
    public func pairing(identifier: [UInt8]) -> Pairing? {
        pairings.first { $0.identifier == identifier }
    }

    /// Whether any controller is paired.
    public var isPaired: Bool { !pairings.isEmpty }
}

/// The accessory's identity in pairing: its pairing identifier (the "XX:XX:XX:XX:XX:XX" device
/// id) and its long-term Ed25519 key (LTSK).
public struct AccessoryIdentity: Sendable {
    public var pairingIdentifier: [UInt8]
    public var longTermKey: Ed25519PrivateKey

    public init(pairingIdentifier: String, longTermKey: Ed25519PrivateKey) {
        self.pairingIdentifier = Array(pairingIdentifier.utf8)
        self.longTermKey = longTermKey
    }
}
