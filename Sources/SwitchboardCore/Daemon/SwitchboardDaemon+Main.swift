import ControlKitCore
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardConfiguration

extension SwitchboardDaemon {
    /// switchboardd's `main`: parses its options (``DaemonCommandLine``) and runs the daemon.
    /// - Returns: the process's exit status: 0 after a clean stop, `--help` or `--version`; 1 when
    ///   the daemon could not start or had to stop; 2 for a usage error.
    @MainActor
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        await main(swiftControls: [], devices: [], arguments: arguments)
    }

    /// The `main` of a program that embeds a Swift bundle in the daemon: switchboardd's options,
    /// and the bundle's controls served beside devices.json's, whose placements may name their
    /// kinds. Its ``Relay``, ``Pulse`` and ``Input`` calls reach devices.json's devices, and
    /// `devices` declared in Swift (``DeviceDeclaration``) beside them.
    ///
    /// ```swift
    /// @main
    /// struct HomeDaemon {
    ///     static func main() async {
    ///         exit(await SwitchboardDaemon.main(bundle: HomeBundle.self))
    ///     }
    /// }
    /// ```
    @MainActor
    public static func main<Bundle: WidgetBundle>(
        bundle: Bundle.Type, devices: [DeviceDeclaration] = [], arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        await main(swiftControls: Bundle().controlDefinitions, devices: devices, arguments: arguments)
    }

    @MainActor
    private static func main(swiftControls: [ControlDefinition], devices: [DeviceDeclaration], arguments: [String]) async -> Int32 {
        let program = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "switchboardd"
        let commandLine = DaemonCommandLine(program: program, swiftKinds: swiftControls.map(\.kind))
        switch DaemonCommandLine.parse(arguments) {
        case .help:
            writeLine(commandLine.usage, to: STDOUT_FILENO)
            return 0
        case .version:
            writeLine(Switchboard.versionLine(program: program), to: STDOUT_FILENO)
            return 0
        case .usageError(let message):
            writeLine("\(program): \(message)\n\(commandLine.usage)", to: STDERR_FILENO)
            return 2
        case .run(let options, let verbose):
            let daemon = SwitchboardDaemon(options: options, log: Log(minimum: verbose ? .debug : .info), swiftControls: swiftControls, devices: devices)
            return await daemon.run()
        }
    }
}
