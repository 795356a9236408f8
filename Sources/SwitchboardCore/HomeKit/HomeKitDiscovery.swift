import SwitchboardHomeKit
import SwitchboardSupport

/// The bridge on the LAN: its `_hap._tcp` service advertised through the system's Avahi
/// (``AvahiAdvertiser``), following each ``HomeKitAdvertisement`` (paired or not, the
/// configuration number) and withdrawn when the bridge stops. Without avahi-daemon the bridge
/// still serves; the advertiser says once how to enable discovery and keeps trying.
final class HomeKitDiscovery: Sendable {
    private let log: Log
    // Invariant: the advertiser is made on the first advertisement and kept; `failed` says that
    // making it failed (said once). Touched under the lock only.
    private let state = Locked<(advertiser: AvahiAdvertiser?, failed: Bool)>((nil, false))

    init(log: Log) { self.log = log }

    /// Advertises what `advertisement` says, or withdraws the service (nil).
    func update(_ advertisement: HomeKitAdvertisement?) {
        let log = self.log
        state.withLock { state in
            guard let advertisement else {
                state.advertiser?.withdraw()
                return
            }
            if state.advertiser == nil {
                do {
                    // Its log runs on Avahi's thread, and never calls the advertiser.
                    state.advertiser = try AvahiAdvertiser(log: { log(.warning, "homekit: discovery: \($0)") }, info: { log(.info, "homekit: discovery: \($0)") })
                } catch {
                    if !state.failed { log(.error, "homekit: discovery off: \(error); the bridge serves, but the Home app will not find it by itself") }
                    state.failed = true
                    return
                }
            }
            state.advertiser?.advertise(Self.record(advertisement))
        }
    }

    /// The service record of an advertisement.
    static func record(_ advertisement: HomeKitAdvertisement) -> HAPServiceRecord {
        HAPServiceRecord(
            name: advertisement.name, port: UInt16(clamping: advertisement.port), deviceID: advertisement.pairingIdentifier,
            model: "Switchboard", configurationNumber: UInt32(clamping: advertisement.configurationNumber),
            isPaired: advertisement.isPaired, setupID: try? HAPSetupID(advertisement.setupID)
        )
    }
}
