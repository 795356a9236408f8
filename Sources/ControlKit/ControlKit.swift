// ControlKit: Apple's Controls API (WidgetKit controls, App Intents, the SwiftUI pieces they use)
// for control code on Linux. `import ControlKit` is the one import such code needs where it had
// `import WidgetKit`, `import AppIntents` and `import SwiftUI`: as those re-export Foundation, so
// does ControlKit (`Date`, `URL`, `UUID`, `Measurement`, formatters).
//
// The model itself is ControlKitCore; switchboardd and the CLI use that alone, so that the daemon
// does not load Foundation's internationalisation (ICU). Control extensions and bundles embedded
// in a daemon import ControlKit and do.
@_exported import ControlKitCore
@_exported import Foundation
