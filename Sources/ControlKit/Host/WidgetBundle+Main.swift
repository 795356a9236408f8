import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension WidgetBundle {
    /// Runs the bundle as a Switchboard control extension.
    ///
    /// The bundle's controls are registered with `ControlCenter.shared`, and the process serves
    /// the line protocol on standard input and output: one ``ControlCommand`` JSON object per line
    /// in, one ``ControlReply`` per line out, and an event line for every change. A daemon runs
    /// control extensions as child processes, as iOS runs widget extensions, so a failing
    /// extension cannot take the daemon down. The process ends at end of input.
    ///
    /// `--gallery` prints the controls gallery as JSON and exits.
    @MainActor
    public static func main() async {
        let center = ControlCenter.shared
        do {
            try await center.register(Self().controlDefinitions, bundleName: Self.bundleDisplayName)
        } catch {
            writeLine("switchboard: \(error)", to: STDERR_FILENO)
            exit(1)
        }
        if CommandLine.arguments.dropFirst().contains("--gallery") {
            var reply = ControlReply()
            reply.gallery = await center.gallery()
            writeLine(ControlLineProtocol.encodeLine(reply), to: STDOUT_FILENO)
            return
        }
        let handler = ControlCommandHandler(center: center, trustsAuthenticatedFlag: true)
        await withDiscardingTaskGroup { group in
            group.addTask { await center.run() }
            group.addTask {
                for await change in center.changes() {
                    writeLine(ControlLineProtocol.encodeLine(ControlLineProtocol.Event(change)), to: STDOUT_FILENO)
                }
            }
            let limit = 1 << 20
            for await read in FileDescriptorLines(descriptor: STDIN_FILENO, maximumLineLength: limit) {
                let reply: ControlReply
                switch read {
                case .line(let line) where line.isEmpty:
                    continue
                case .line(let line):
                    switch ControlLineProtocol.decodeCommand(line) {
                    case .success(let command): reply = await handler.handle(command)
                    case .failure(let error): reply = error.reply
                    }
                case .tooLong:
                    reply = .failure(code: "lineTooLong", message: "a command line longer than \(limit) bytes was ignored")
                }
                writeLine(ControlLineProtocol.encodeLine(reply), to: STDOUT_FILENO)
            }
            group.cancelAll()
        }
    }
}
