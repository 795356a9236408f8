/// A device call from a control extension to its daemon, one JSON object per line on the
/// extension's standard output: `{"device":"set","id":"porch","value":true,"call":3}`.
/// The daemon answers each with a ``DeviceAnswer`` on the extension's standard input.
public struct DeviceRequest: Sendable, Hashable, Codable {
    /// What to do.
    public enum Operation: String, Sendable, Codable, CaseIterable {
        case devices, value, set, pulse
    }

    public var device: Operation
    /// The device, for `value`, `set`, `pulse`.
    public var id: String?
    /// For `set`: the new value.
    public var value: Bool?
    /// The control kind the call is made for (its controls then follow the device).
    public var kind: String?
    /// The number the answer carries back.
    public var call: Int

    public init(_ device: Operation, id: String? = nil, value: Bool? = nil, kind: String? = nil, call: Int) {
        self.device = device
        self.id = id
        self.value = value
        self.kind = kind
        self.call = call
    }
}

/// The daemon's answer to a ``DeviceRequest``: `{"answer":3,"ok":true}`.
public struct DeviceAnswer: Sendable, Hashable, Codable {
    /// The request's ``DeviceRequest/call``.
    public var answer: Int
    public var ok: Bool
    /// For `value`: the value (absent while not known).
    public var value: Bool?
    /// For `devices`.
    public var devices: [DeviceDescription]?
    public var error: DeviceError?

    public init(answer: Int, ok: Bool = true, value: Bool? = nil, devices: [DeviceDescription]? = nil, error: DeviceError? = nil) {
        self.answer = answer
        self.ok = ok
        self.value = value
        self.devices = devices
        self.error = error
    }
}
