import SwitchboardSupport

/// A message received from or sent to the broker.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    /// 0 or 1.
    public var qos: Int
    /// A retained message (on receipt: delivered from the broker's store when subscribing).
    public var retain: Bool
    /// On receipt: the payload was larger than the connection's `maximumPayloadSize`, and was
    /// not kept (``payload`` is empty).
    public var isOversized = false

    public init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int = 0, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload as UTF-8 text, or nil if it is not UTF-8.
    public var text: String? { String(validating: payload, as: UTF8.self) }
}

/// What happened to the connection.
public enum MQTTConnectionEvent: Sendable, Hashable {
    /// Connected (again): subscriptions are renewed; publish retained state now.
    case connected
    /// The broker refused the connection, with its reason.
    case refused(String)
    /// The connection was lost or could not be made; a reconnect follows after `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
    /// Under MQTT 5, the broker acknowledged a QoS 1 publish with a failure: most often its ACL
    /// does not let this client write the topic ("Not authorized").
    case publishRefused(topic: String, reason: String)
}

/// How to reach the broker.
public struct MQTTClientConfiguration: Sendable {
    public var host: String
    public var port: Int
    public var clientID: String?
    public var keepalive: Int
    public var username: String?
    public var password: String?
    public var protocolV5: Bool
    public var tlsCAFile: String?
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// The last will, published by the broker if the connection dies.
    public var will: MQTTMessage?
    public var cleanSession: Bool
    /// Delays between reconnect attempts (capped, exponential, with jitter).
    public var reconnect: Backoff
    /// The clock reconnect delays are waited on (a manual one in tests).
    public var clock = AnyClock(ContinuousClock())
    /// Payloads larger than this are not copied out of libmosquitto's buffer: the message arrives
    /// with ``MQTTMessage/isOversized`` set and no payload. Nil: no limit.
    public var maximumPayloadSize: Int?
    /// Under MQTT 5, the largest packet the broker may send this client; it drops larger ones
    /// for it, so they never reach this process. Nil: no limit (and always under MQTT 3.1.1).
    public var maximumPacketSize: Int?

    public init(host: String = "127.0.0.1", port: Int = 1883, clientID: String? = nil, keepalive: Int = 60) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepalive = keepalive
        protocolV5 = false
        will = nil
        cleanSession = true
        reconnect = Backoff(initial: .milliseconds(500), maximum: .seconds(30), jitter: 0.25)
    }
}

