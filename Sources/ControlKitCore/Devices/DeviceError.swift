/// Why a device call failed: ``description`` names the device, what was expected and what to do.
public struct DeviceError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, Codable {
        /// No device has that id.
        case unknownDevice
        /// The caller may not use that device (a control extension's `devices` in devices.json).
        case notAllowed
        /// The call does not fit the device (setting an input, pressing a relay).
        case wrongKind
        /// The device's value is not known yet.
        case unknownValue
        /// No device service: the code runs neither in switchboardd nor in one of its extensions.
        case noService
        /// The device did not do what was asked (a line that could not be set, a state not saved,
        /// a device of another system that did not confirm).
        case failed
    }

    /// What went wrong.
    public var code: Code
    /// The whole message, naming the device.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
