import SwitchboardSupport
/// switchboardd's command line, parsed: the options of a daemon, whether it is switchboardd itself
/// or a program that embeds a Swift bundle (``SwitchboardDaemon/main(bundle:arguments:)``).
public struct DaemonCommandLine: Sendable {
    /// What the arguments ask for.
    public enum Request: Sendable {
        /// Run the daemon with these options, logging debug lines too when `verbose`.
        case run(DaemonOptions, verbose: Bool)
        /// `-h`, `--help`: print ``usage``.
        case help
        /// `--version`: print the version line.
        case version
        /// Arguments that are not the daemon's options: the message says which (exit status 2).
        case usageError(String)
    }

    /// The program's name, as messages and `--help` show it (`switchboardd`).
    public let program: String
    /// The kinds of the Swift controls compiled into the program, listed by `--help`.
    public let swiftKinds: [String]

    public init(program: String, swiftKinds: [String] = []) {
        self.program = program
        self.swiftKinds = swiftKinds
    }

    /// What `--help` prints, and what follows a usage error.
    public var usage: String {
        let compiled = swiftKinds.isEmpty ? "" : """

        Also serves the Swift controls compiled into it, whose kinds devices.json's placements may name:
        \(swiftKinds.map { "  " + $0 }.joined(separator: "\n"))

        """
        return """
        usage: \(program) [--config PATH] [--simulate] [--state-dir DIR] [--socket PATH] [--socket-idle-timeout D] [--verbose]

        Runs the controls of a devices.json on this board's GPIO and MQTT.
        \(compiled)
          --config PATH     devices.json (default /etc/switchboard/devices.json)
          --simulate        use simulated GPIO chips instead of /dev/gpiochip*
          --state-dir DIR   where outputs, placements and timers are kept (default /var/lib/switchboard)
          --socket PATH     the local control socket (default /run/switchboard/switchboard.sock)
          --socket-idle-timeout D
                            close a socket connection that sent no complete request for D (default 30s)
          --extension-socket PATH
                            run each control extension as a switchboard-extension@.service
                            instance, through this socket (systemd's switchboard-extension.socket)
          --verbose         log debug lines too
          --version         print the version and the libraries it was built with
          -h, --help        show this help

        Signals: SIGHUP reloads devices.json (a bad file keeps the running configuration),
        SIGTERM and SIGINT stop cleanly.
        """
    }

    /// Parses the arguments (without the program name). The first help, version or error wins.
    public static func parse(_ arguments: [String]) -> Request {
        var options = DaemonOptions()
        var verbose = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            /// The value after a flag: a missing one, or another flag, is a usage error.
            func value() -> String? {
                guard let value = rest.first, !value.hasPrefix("--") else { return nil }
                rest.removeFirst()
                return value
            }
            switch argument {
            case "--config", "--state-dir", "--socket":
                guard let value = value() else { return .usageError("\(argument) needs a value") }
                switch argument {
                case "--config": options.configPath = value
                case "--state-dir": options.stateDirectory = value
                default: options.socketPath = value
                }
            case "--socket-idle-timeout":
                guard let text = value(), let timeout = DurationText.parse(text), timeout > .zero else {
                    return .usageError("--socket-idle-timeout needs a duration such as 30s or 500ms")
                }
                options.socketIdleTimeout = timeout
            case "--simulate": options.simulate = true
            case "--verbose": verbose = true
            case "--extension-socket":
                guard let value = value() else { return .usageError("--extension-socket needs the path of switchboard-extension.socket") }
                options.extensionSocket = value
            case "-h", "--help": return .help
            case "--version": return .version
            default: return .usageError("unknown option \(argument)")
            }
        }
        return .run(options, verbose: verbose)
    }
}
