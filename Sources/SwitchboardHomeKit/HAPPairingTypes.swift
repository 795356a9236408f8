/// The TLV types of HAP's pairing messages.
public enum HAPTLVType: UInt8, Sendable {
    case method = 0x00
    case identifier = 0x01
    case salt = 0x02
    case publicKey = 0x03
    case proof = 0x04
    case encryptedData = 0x05
    case state = 0x06
    case error = 0x07
    case retryDelay = 0x08
    case certificate = 0x09
    case signature = 0x0A
    case permissions = 0x0B
    case fragmentData = 0x0C
    case fragmentLast = 0x0D
    case flags = 0x13
    case separator = 0xFF
}

/// HAP's kTLVError codes, sent in a pairing response's Error item.
public enum HAPPairingError: UInt8, Error, Sendable {
    /// Something else went wrong (a message out of order, a libcrypto failure).
    case unknown = 0x01
    /// The setup code or a signature is wrong, or the data was altered.
    case authentication = 0x02
    /// The client must wait before trying again.
    case backoff = 0x03
    /// The accessory cannot take another pairing.
    case maxPeers = 0x04
    /// 100 failed pair-setup attempts: the accessory refuses pair-setup until it is reset.
    case maxTries = 0x05
    /// The accessory is already paired: pair-setup again is refused.
    case unavailable = 0x06
    /// Another pair-setup is in progress.
    case busy = 0x07
}

extension TLV8 {
    /// The value of the first item of a pairing type.
    public subscript(type: HAPTLVType) -> [UInt8]? { self[type.rawValue] }

    /// Appends an item of a pairing type.
    public mutating func append(_ type: HAPTLVType, _ value: [UInt8]) { append(type.rawValue, value) }

    /// The one-byte State item, or nil.
    public var pairingState: UInt8? {
        guard let value = self[.state], value.count == 1 else { return nil }
        return value[0]
    }

    /// A response of `state` carrying `error`.
    public static func pairingError(state: UInt8, _ error: HAPPairingError) -> TLV8 {
        TLV8([Item(HAPTLVType.state.rawValue, [state]), Item(HAPTLVType.error.rawValue, [error.rawValue])])
    }
}
