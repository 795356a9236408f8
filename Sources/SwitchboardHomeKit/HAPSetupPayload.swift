/// What a controller needs to pair with the accessory without typing its code: the `X-HM://`
/// setup URI that the accessory's QR code (and NFC tag) carries.
///
/// The URI is `X-HM://`, nine base-36 digits (0-9, A-Z) of a 45-bit payload, then the 4-character
/// setup ID. The payload, from its most significant bit: version (3 bits, 0), reserved (4 bits,
/// 0), category (8 bits), flags (4 bits: 2 = HAP over IP), the setup code's eight digits as one
/// number (27 bits) — as HAP-python's `Accessory.xhm_uri` and HAP-NodeJS lay it out.
public struct HAPSetupPayload: Sendable, Equatable {
    /// How the accessory is reached, the payload's flags.
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Supports NFC pairing.
        public static let nfc = Flags(rawValue: 1)
        /// HAP over IP (Wi-Fi, Ethernet).
        public static let ip = Flags(rawValue: 2)
        /// HAP over Bluetooth LE.
        public static let bluetoothLE = Flags(rawValue: 4)
    }

    public var setupCode: SetupCode
    public var setupID: HAPSetupID
    /// HAP's accessory category, e.g. 2 for a bridge (`HAPServiceRecord.bridgeCategory`).
    public var category: UInt8
    public var flags: Flags

    public init(setupCode: SetupCode, setupID: HAPSetupID, category: UInt8 = HAPServiceRecord.bridgeCategory, flags: Flags = .ip) {
        self.setupCode = setupCode
        self.setupID = setupID
        self.category = category
        self.flags = flags
    }

    /// The payload's 45 bits (version and reserved bits 0).
    public var payload: UInt64 {
        let code = UInt64(setupCode.description.filter { $0 != "-" })! // eight digits, checked by SetupCode
        return UInt64(category) << 31 | UInt64(flags.rawValue & 0xF) << 27 | code & 0x7FF_FFFF
    }

    /// The setup URI, e.g. "X-HM://0023ISYWY7OSX" for a bridge with code 031-45-154 and ID "7OSX".
    public var uri: String {
        var digits: [Character] = []
        var value = payload
        repeat {
            digits.append(HAPSetupID.alphabet[Int(value % 36)])
            value /= 36
        } while value > 0
        let encoded = String(digits.reversed())
        return "X-HM://" + String(repeating: "0", count: max(0, 9 - encoded.count)) + encoded + setupID.description
    }
}

/// The accessory's setup ID: four characters of 0-9 and A-Z, made once and kept with the
/// accessory; it ends the setup URI and, hashed with the device ID, is the TXT record's `sh`.
public struct HAPSetupID: Sendable, Equatable, CustomStringConvertible {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    public let description: String

    /// The ID `text`; throws when it is not four characters of 0-9 and A-Z.
    public init(_ text: String) throws(HAPSetupIDError) {
        guard text.count == 4, text.allSatisfy({ HAPSetupID.alphabet.contains($0) }) else {
            throw HAPSetupIDError(id: text)
        }
        description = text
    }

    /// A new random ID (from libcrypto's generator).
    public static func random() throws -> HAPSetupID {
        let bytes = try LibCrypto.randomBytes(4)
        // 256 is not a multiple of 36: the bias (at most 1 in 36) does not matter for an ID that
        // only tells accessories apart.
        return try HAPSetupID(String(bytes.map { alphabet[Int($0) % 36] }))
    }
}

/// A setup ID that is not four characters of 0-9 and A-Z.
public struct HAPSetupIDError: Error, Equatable, CustomStringConvertible {
    public var id: String
    public var description: String { "setup ID \"\(id)\": expected four characters of 0-9 and A-Z, e.g. 7OSX" }
}
