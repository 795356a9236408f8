/// The accessory's `_hap._tcp` DNS-SD service as HAP over IP describes it: the instance name
/// controllers show, the port of the accessory server and the TXT record's keys.
public struct HAPServiceRecord: Sendable, Equatable {
    /// The DNS-SD service type of HAP over IP.
    public static let serviceType = "_hap._tcp"
    /// HAP's category of a bridge (`ci`).
    public static let bridgeCategory: UInt8 = 2

    /// The service's instance name, e.g. "Switchboard 1A2B" (at most 63 bytes of UTF-8).
    public var name: String
    /// The accessory server's TCP port.
    public var port: UInt16
    /// The device ID, "XX:XX:XX:XX:XX:XX" in upper-case hex (`id`); also the pairing identifier.
    public var deviceID: String
    /// The model shown before pairing (`md`).
    public var model: String
    /// The configuration number (`c#`, 1 to 65535): bumped whenever the accessories change, so
    /// that controllers fetch them again.
    public var configurationNumber: UInt32
    /// Whether a controller is paired: the status flag `sf` is 0 when paired, 1 when not.
    public var isPaired: Bool
    /// The category (`ci`), 2 for a bridge.
    public var category: UInt8
    /// The setup ID, hashed into `sh`; nil leaves `sh` out.
    public var setupID: HAPSetupID?
    /// Feature flags (`ff`): 0, the accessory pairs with its setup code (no Apple
    /// authentication coprocessor, no software authentication).
    public var featureFlags: UInt8
    /// The state number (`s#`), 1 for HAP over IP.
    public var stateNumber: UInt32

    public init(name: String, port: UInt16, deviceID: String, model: String, configurationNumber: UInt32 = 1,
                isPaired: Bool = false, category: UInt8 = HAPServiceRecord.bridgeCategory, setupID: HAPSetupID? = nil,
                featureFlags: UInt8 = 0, stateNumber: UInt32 = 1) {
        self.name = name
        self.port = port
        self.deviceID = deviceID
        self.model = model
        self.configurationNumber = configurationNumber
        self.isPaired = isPaired
        self.category = category
        self.setupID = setupID
        self.featureFlags = featureFlags
        self.stateNumber = stateNumber
    }

    /// The name as advertised: DNS-SD allows 63 bytes of UTF-8 in an instance name, so a longer
    /// one is cut at the last whole character that fits.
    public var instanceName: String {
        var cut = ""
        for character in name where cut.utf8.count + String(character).utf8.count <= 63 { cut.append(character) }
        return cut
    }

    /// The TXT record's keys and values, in HAP's order.
    public var txt: [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = [
            ("c#", String(configurationNumber)), ("ff", String(featureFlags)), ("id", deviceID), ("md", model),
            ("pv", "1.1"), ("s#", String(stateNumber)), ("sf", isPaired ? "0" : "1"), ("ci", String(category)),
        ]
        if let setupID { pairs.append(("sh", HAPServiceRecord.setupHash(setupID: setupID, deviceID: deviceID))) }
        return pairs
    }

    /// The setup hash `sh`: base64 of the first 4 bytes of SHA-512(setup ID + device ID), with
    /// which a controller that scanned the QR code finds this accessory among the advertised ones.
    public static func setupHash(setupID: HAPSetupID, deviceID: String) -> String {
        // SHA-512 of a few bytes fails only when libcrypto itself is broken, which pairing would
        // find first; an empty hash then only makes the QR code's lookup fall back to the name.
        guard let digest = try? SHA.sha512.hash(Array((setupID.description + deviceID).utf8)) else { return "" }
        return Base64.encode(Array(digest.prefix(4)))
    }
}

/// Base64 (RFC 4648, with padding), for the setup hash.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    static func encode(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group = UInt32(0)
            for (offset, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * UInt32(offset)) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)] : "=")
            }
            index += 3
        }
        return text
    }
}
