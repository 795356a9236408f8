// Backoff and AnyClock appear in ControlCenter's initialiser; clients get them with ControlKit.
@_exported import SwitchboardSupport
// As WidgetKit and SwiftUI re-export Foundation, ControlKit re-exports FoundationEssentials:
// Date, URL, UUID, Data, Calendar, JSONEncoder with only `import ControlKit`. Not the whole of
// Foundation, which would load ICU into every daemon and extension (Measurement and formatters:
// add `import Foundation` where a control uses them).
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
