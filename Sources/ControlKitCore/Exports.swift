// Backoff and AnyClock appear in ControlCenter's initialiser; clients get them with ControlKit.
@_exported import SwitchboardSupport
// ControlKitCore is what switchboardd and the CLI are built on: it re-exports FoundationEssentials
// (Date, URL, UUID, Data, JSONEncoder) and not the rest of Foundation, which would load ICU into
// the daemon. Control code imports `ControlKit`, which adds all of Foundation.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
