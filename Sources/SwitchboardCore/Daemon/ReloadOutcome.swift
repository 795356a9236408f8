/// How a reload of devices.json went (SIGHUP or `switchboard apply`).
public enum ReloadOutcome: Sendable, Equatable {
    /// The new configuration serves; what changed, one line each ("device shed added").
    case reloaded([String])
    /// The running configuration was kept, and why (the file's problems, or why the new one
    /// could not start).
    case kept(String)
    /// Neither the new nor the previous configuration could start: the daemon stops, for
    /// systemd to restart it.
    case fatal
}
