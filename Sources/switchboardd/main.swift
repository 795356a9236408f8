import SwitchboardCore
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: switchboardd [--config PATH] [--simulate] [--state-dir DIR] [--socket PATH]

Runs the controls of a devices.json on this board's GPIO and MQTT.

  --config PATH     devices.json (default /etc/switchboard/devices.json)
  --simulate        use simulated GPIO chips instead of /dev/gpiochip*
  --state-dir DIR   where outputs, placements and timers are kept (default /var/lib/switchboard)
  --socket PATH     the local control socket (default /run/switchboard/switchboard.sock)
  --verbose         log debug lines too
  --version         print the version and the libraries it was built with
  -h, --help        show this help

Signals: SIGHUP reloads devices.json (a bad file keeps the running configuration),
SIGTERM and SIGINT stop cleanly.
"""

var options = DaemonOptions()
var verbose = false
var arguments = CommandLine.arguments.dropFirst()
func printError(_ message: String) {
    writeLine("switchboardd: " + message, to: STDERR_FILENO)
}

@MainActor
func value(for flag: String) -> String {
    guard let value = arguments.popFirst(), !value.hasPrefix("--") else {
        printError("\(flag) needs a value\n\(usage)")
        exit(2)
    }
    return value
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--config": options.configPath = value(for: argument)
    case "--simulate": options.simulate = true
    case "--state-dir": options.stateDirectory = value(for: argument)
    case "--socket": options.socketPath = value(for: argument)
    case "--verbose": verbose = true
    case "-h", "--help":
        print(usage)
        exit(0)
    case "--version":
        print(Switchboard.versionLine(program: "switchboardd"))
        exit(0)
    default:
        printError("unknown option \(argument)\n\(usage)")
        exit(2)
    }
}

let daemon = SwitchboardDaemon(options: options, log: Log(minimum: verbose ? .debug : .info))
exit(await daemon.run())
