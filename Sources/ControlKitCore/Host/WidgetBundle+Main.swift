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
    /// in, one ``ControlReply`` per line out, and an event line for every change and every
    /// `reloadControls(ofKind:)`. Device calls (``Relay``, ``Pulse``, ``Input``) go to the daemon
    /// as ``DeviceRequest`` lines and come back as ``DeviceAnswer``s. A daemon runs control
    /// extensions as child processes, as iOS runs widget extensions, so a failing extension
    /// cannot take the daemon down. Commands with a `call` number run concurrently; others are
    /// answered in order. The process ends at end of input.
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
        await serveLineProtocol(center: center, input: STDIN_FILENO, output: QueuedLineWriter(descriptor: STDOUT_FILENO, isSocket: false))
    }
}

/// Serves a control extension's line protocol until end of input.
func serveLineProtocol(center: ControlCenter, input: Int32, output: QueuedLineWriter) async {
    let parent = ParentDeviceService(output: output)
    DeviceCenter.shared.connect(parent)
    let handler = ControlCommandHandler(center: center, trustsAuthenticatedFlag: true)
    let changes = center.changes()
    let reloads = center.requestedReloads()
    await withDiscardingTaskGroup { group in
        group.addTask { await center.run() }
        group.addTask {
            for await change in changes { output.send(ControlLineProtocol.encodeLine(ControlLineProtocol.Event(change))) }
        }
        group.addTask {
            for await kind in reloads { output.send(ControlLineProtocol.encodeLine(ControlLineProtocol.Event.reload(kind: kind))) }
        }
        // Lines without a call number are answered in order, by one task of their own, so that
        // reading goes on: the device answers such a command may wait for come this way too.
        let (inOrder, enqueue) = AsyncStream<Result<ControlCommand, ControlReplyError>>.makeStream()
        await withDiscardingTaskGroup { work in
            work.addTask {
                for await next in inOrder {
                    let reply = switch next {
                    case .success(let command): await handler.handle(command)
                    case .failure(let error): error.reply
                    }
                    await output.write(ControlLineProtocol.encodeLine(reply))
                }
            }
            let limit = 1 << 20
            for await read in FileDescriptorLines(descriptor: input, maximumLineLength: limit) {
                switch read {
                case .line(let line) where line.isEmpty:
                    continue
                case .line(let line) where ControlLineProtocol.kind(of: line) == .deviceAnswer:
                    if let answer = ControlLineProtocol.decode(DeviceAnswer.self, from: line) { parent.resolve(answer) }
                case .line(let line):
                    let decoded = ControlLineProtocol.decodeCommand(line)
                    if case .success(let command) = decoded, command.call != nil {
                        // Awaited, so that the extension does not end before its answer is out.
                        work.addTask { await output.write(ControlLineProtocol.encodeLine(await handler.handle(command))) }
                    } else {
                        enqueue.yield(decoded)
                    }
                case .tooLong:
                    enqueue.yield(.failure(ControlReplyError(reply: .failure(code: "lineTooLong", message: "a command line longer than \(limit) bytes was ignored"))))
                }
            }
            // End of input: device calls still waiting fail at once, and the commands read are
            // answered before the extension ends.
            parent.disconnect("the daemon closed this extension's input")
            enqueue.finish()
        }
        group.cancelAll()
    }
}
