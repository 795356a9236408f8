/// Facts about this build of Switchboard.
public enum Switchboard {
    /// The version, as Home Assistant and `--version` show it.
    public static let version = "0.1.0"
}
