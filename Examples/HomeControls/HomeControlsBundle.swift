import ControlKit

/// The example bundle: a light toggle configured per light, a garage-door button that requires
/// authentication, and a sprinkler toggle with its own value text and hints.
public struct HomeControlsBundle: WidgetBundle {
    public init() {}

    public var body: some Widget {
        LightToggle()
        GarageDoorButton()
        SprinklerToggle()
    }
}
