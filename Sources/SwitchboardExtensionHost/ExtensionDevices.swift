import ControlKitCore

/// The node's devices as a control extension's device calls reach them: the devices devices.json
/// lets it use, obeying the node's lock as every other door does. The daemon's `NodeDeviceService`
/// is one; a host sets ``authenticated`` while it performs an action an authenticated caller (the
/// local CLI) asked for, during which its calls may change what the lock guards.
public protocol ExtensionDevices: DeviceService {
    /// Whether the calls act for an authenticated request now.
    var authenticated: Bool { get set }
}
