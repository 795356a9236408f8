import ControlKit

/// The example bundle: a light toggle configured per light, a garage-door button that requires
/// authentication, and a sprinkler toggle with its own value text and hints. They drive the
/// board's devices (``Relay``, ``Pulse``): devices.json's `garage` pulse output, its `sprinkler`
/// relay, and any relay or device of another system as a light. Embedded in switchboardd or run
/// by it as a control extension, they reach that daemon's devices.
public struct HomeControlsBundle: WidgetBundle {
    public init() {}

    public var body: some Widget {
        LightToggle()
        GarageDoorButton()
        SprinklerToggle()
    }
}
