import SwitchboardGPIO
import SwitchboardMQTT

/// Facts about this build of Switchboard.
public enum Switchboard {
    /// The version, as Home Assistant and `--version` show it.
    public static let version = "0.1.0"

    /// What `--version` prints: "switchboardd 0.1.0 (commit 5e532f2a9c41, libgpiod 2.2.1,
    /// libmosquitto 2.0.21, Swift 6.0)"; the commit is `buildCommit`, "unknown" when that is empty.
    public static func versionLine(program: String) -> String {
        let commit = buildCommit.isEmpty ? "unknown" : buildCommit
        return "\(program) \(version) (commit \(commit), \(LibgpiodChip.libraryVersion), \(MQTTConnection.libraryVersion), Swift \(swiftVersion))"
    }

    /// The language version this build was compiled with.
    static var swiftVersion: String {
        #if compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }
}
