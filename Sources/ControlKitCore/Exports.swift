// ControlKitCore is what switchboardd and the CLI are built on: it re-exports FoundationEssentials
// (Date, URL, UUID, Data, JSONEncoder) and not the rest of Foundation, which would load ICU into
// the daemon. Control code imports `ControlKit`, which adds all of Foundation.
//
// SwitchboardSupport (locks, process spawning, the clock the runtime takes) is plumbing, not the
// Controls API: it is not re-exported, and code that names its types imports it.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
