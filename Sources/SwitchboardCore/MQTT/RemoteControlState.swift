#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// What a node knows of a control on another node, from that node's retained topics: whether the
/// node is online and the control's last presentation. It decides what a device bound to the
/// control shows: its value, or why none can be trusted now (the controls bound to it then go
/// stale, keeping their last good presentation, rather than show a value that may be wrong).
struct RemoteControlState: Sendable, Equatable {
    /// From the node's `status`: nil until one arrives.
    var online: Bool?
    /// The control's last presentation; nil until one arrives.
    var presentation: ControlPresentation?
    /// The node cleared the control's presentation: it is no longer placed there.
    var removed = false

    /// What the device shows.
    enum Shown: Equatable {
        case value(Bool)
        /// Nothing known yet: no presentation has arrived.
        case unknown
        /// Known, but not to be trusted now, and why.
        case unavailable(String)
    }

    func shown(_ remote: RemoteControlSettings) -> Shown {
        if online == false { return .unavailable("\(remote.node) is offline; \(remote.address) shows its last known state") }
        if removed { return .unavailable("\(remote.node) has no control \"\(remote.control)\" placed (switchboard --broker … center lists what it has)") }
        guard let presentation else { return .unknown }
        if presentation.redacted { return .unavailable("\(remote.address) is hidden while \(remote.node) is locked") }
        if presentation.needsConfiguration { return .unavailable("\(remote.address) needs configuring on \(remote.node)") }
        if presentation.stale { return .unavailable("\(remote.address) is stale on \(remote.node): its state could not be read there") }
        // A button has no value: it shows as off.
        return .value(presentation.value ?? false)
    }

    /// Takes the node's `status` payload.
    mutating func status(_ text: String?) {
        online = text == "online"
    }

    /// Takes the control's retained presentation (empty: removed); false if it is not one.
    mutating func presentation(_ payload: [UInt8]) -> Bool {
        if payload.isEmpty {
            removed = true
            presentation = nil
            return true
        }
        guard let decoded = try? CheckedJSON.decode(ControlPresentation.self, from: Data(payload)) else { return false }
        removed = false
        presentation = decoded
        return true
    }
}
