import SwitchboardConfiguration
/// The topics of other nodes a node follows for its `node` devices, and what each is to which
/// device: worked out once per configuration, so that each incoming message is routed with one
/// lookup (every message that is not the node's own goes past here).
struct RemoteRoutes: Sendable {
    /// What a topic of another node carries.
    enum Kind: Sendable {
        /// The node's `status`.
        case status
        /// A control's retained presentation.
        case presentation
        /// A control's `/result`.
        case result
    }

    struct Route: Sendable {
        let device: DeviceSettings
        let remote: RemoteControlSettings
        let kind: Kind
    }

    private var routes: [String: [Route]] = [:]
    /// Every topic followed, once each, in the order the devices are declared: the subscriptions.
    private(set) var filters: [String] = []

    /// The routes of `devices`' controls on other nodes, for a node whose base topic is `base`.
    init(devices: [DeviceSettings], base: String) {
        for device in devices {
            guard let remote = device.remote else { continue }
            let topics = Self.topics(of: remote, besides: base)
            for (topic, kind) in [(topics.status, Kind.status), (topics.control(remote.control), .presentation), (topics.result(remote.control), .result)] {
                if routes[topic] == nil { filters.append(topic) }
                routes[topic, default: []].append(Route(device: device, remote: remote, kind: kind))
            }
        }
    }

    /// What `topic` is to which devices; nil if it is not followed.
    subscript(topic: String) -> [Route]? { routes[topic] }

    /// The topics of the node a control on another node lives on: its node's name under the
    /// prefix `base` is under (`switchboard/shed-pi` beside `switchboard/garage-pi`).
    static func topics(of remote: RemoteControlSettings, besides base: String) -> TopicContract {
        let prefix = base.lastIndex(of: "/").map { String(base[..<$0]) }
        return TopicContract(base: prefix.map { $0 + "/" + remote.node } ?? remote.node)
    }
}
