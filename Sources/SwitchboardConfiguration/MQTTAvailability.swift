#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// Where a device of another system says whether it is online, and the payloads that mean yes
/// and no: Tasmota's last will `tele/<topic>/LWT` (`Online`/`Offline`), Zigbee2MQTT's
/// `<base>/<device>/availability` (`online`/`offline`, or `{"state":"online"}`), Shelly's
/// `shellies/<id>/online` (`true`/`false`).
public struct MQTTAvailability: Sendable, Equatable {
    public var topic: String
    public var payloadAvailable: String
    public var payloadNotAvailable: String

    public init(topic: String, payloadAvailable: String, payloadNotAvailable: String) {
        self.topic = topic
        self.payloadAvailable = payloadAvailable
        self.payloadNotAvailable = payloadNotAvailable
    }

    /// What an availability message says: true for available, false for not, nil for neither.
    /// The payload is compared without surrounding white space; a JSON object's `state` (as
    /// Zigbee2MQTT sends with its `availability` feature's JSON form) is compared the same way.
    public func available(_ payload: [UInt8]) -> Bool? {
        guard payload.count <= CommandPayload.maximumSize, let whole = String(validating: payload, as: UTF8.self) else { return nil }
        let text = whole.trimmingCharacters()
        if let said = says(text) { return said }
        guard text.hasPrefix("{"), let json = try? JSONValue.parse(Data(text.utf8)), case .string(let state)? = json["state"] else { return nil }
        return says(state)
    }

    /// True for the available payload, false for the other, nil for neither.
    private func says(_ text: String) -> Bool? {
        text == payloadAvailable ? true : text == payloadNotAvailable ? false : nil
    }

    /// The availability a system's convention gives a device, read from its topics: Tasmota's
    /// `cmnd/<topic>/…` command topic, Zigbee2MQTT's `<state topic>/set`, Shelly's
    /// `shellies/<id>/…`; nil for a device of no known system.
    public static func convention(stateTopic: String, commandTopic: String) -> MQTTAvailability? {
        let parts = commandTopic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count >= 3, parts[0] == "cmnd", !parts[1].isEmpty {
            return MQTTAvailability(topic: "tele/\(parts[1])/LWT", payloadAvailable: "Online", payloadNotAvailable: "Offline")
        }
        if parts.count >= 3, parts[0] == "shellies", !parts[1].isEmpty {
            return MQTTAvailability(topic: "shellies/\(parts[1])/online", payloadAvailable: "true", payloadNotAvailable: "false")
        }
        if !stateTopic.isEmpty, commandTopic == stateTopic + "/set" {
            return MQTTAvailability(topic: stateTopic + "/availability", payloadAvailable: "online", payloadNotAvailable: "offline")
        }
        return nil
    }
}
