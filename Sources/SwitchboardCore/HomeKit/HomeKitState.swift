#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardHomeKit

/// What the HomeKit bridge keeps in the state directory (`homekit.json`, 0600): the accessory's
/// identity, the setup code it made, the controllers' pairings, the failed pair-setup attempts,
/// the configuration number and the ids given to each placement. Losing it unpairs the node from
/// every Home; it is written whole, atomically (``HomeKitStateFile``).
public struct HomeKitState: Codable, Sendable, Equatable {
    /// The accessory's pairing identifier, "XX:XX:XX:XX:XX:XX" (random, made once).
    public var pairingIdentifier: String
    /// The 32-byte seed of the accessory's long-term Ed25519 key, base64.
    public var longTermKey: String
    /// The setup code made on first start, when devices.json gives none.
    public var setupCode: String?
    /// The setup ID (four characters of 0-9 and A-Z) of the setup URI and the `sh` of the
    /// advertisement, made on first start; absent in a file written before it was kept.
    public var setupID: String?
    /// The controllers paired with the accessory.
    public var pairings: [StoredPairing] = []
    /// Failed pair-setup attempts (a wrong setup code) since the last reset.
    public var failedPairSetupAttempts = 0
    /// HAP's configuration number (`c#`), 1…65535: bumped when the accessories change.
    public var configurationNumber = 1
    /// The accessories' ids, by placement (``HomeKitAccessoryMap``).
    public var accessories = HomeKitAccessoryMap()

    /// One controller's pairing: its identifier and long-term public key, base64.
    public struct StoredPairing: Codable, Sendable, Equatable {
        public var identifier: String
        public var publicKey: String
        public var admin: Bool
    }

    public init(pairingIdentifier: String, longTermKey: String) {
        self.pairingIdentifier = pairingIdentifier
        self.longTermKey = longTermKey
    }

    /// A new accessory identity: a random pairing identifier and a new long-term key.
    public static func new() throws -> HomeKitState {
        var generator = SystemRandomNumberGenerator()
        let identifier = (0..<6).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
        let seed = try Ed25519PrivateKey().rawRepresentation()
        return HomeKitState(pairingIdentifier: identifier, longTermKey: Data(seed).base64EncodedString())
    }

    /// A random setup code that HAP allows ("XXX-XX-XXX", not one it forbids).
    public static func randomSetupCode() -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let digits = (0..<8).map { _ in String(Int.random(in: 0...9, using: &generator)) }
            let text = digits[0..<3].joined() + "-" + digits[3..<5].joined() + "-" + digits[5..<8].joined()
            if (try? SetupCode(text)) != nil { return text }
        }
    }
}
