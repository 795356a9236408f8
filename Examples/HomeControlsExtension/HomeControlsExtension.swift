import ControlKit
import HomeControlsExample

/// The example bundle as a control extension executable: `@main` is all it takes.
@main
struct HomeControlsExtension: WidgetBundle {
    var body: some Widget {
        LightToggle()
        GarageDoorButton()
        SprinklerToggle()
    }
}
