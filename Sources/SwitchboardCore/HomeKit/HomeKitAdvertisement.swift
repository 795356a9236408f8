/// What the bridge's `_hap._tcp` advertisement says (its TXT record's `md`, `id`, `c#`, `sf`),
/// given to ``HomeKitBridge/advertisementChanged`` whenever it changes: when the bridge starts,
/// is paired or unpaired, or its accessories change (the configuration number). nil: the bridge
/// stopped, the advertisement goes.
public struct HomeKitAdvertisement: Sendable, Equatable {
    /// The bridge's name (`md`, and the service instance's name).
    public var name: String
    /// The TCP port it serves on.
    public var port: Int
    /// The accessory's pairing identifier (`id`).
    public var pairingIdentifier: String
    /// The configuration number (`c#`).
    public var configurationNumber: Int
    /// Whether a controller is paired (`sf` 0; 1 while unpaired).
    public var isPaired: Bool
    /// The setup code, for the setup URI and its QR code.
    public var setupCode: String
    /// The setup ID, for the setup URI and the advertisement's `sh`.
    public var setupID: String
}
