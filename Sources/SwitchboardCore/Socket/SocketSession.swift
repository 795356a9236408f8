#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKit
import SwitchboardSupport

/// Just a command's `op`, to route the daemon's own commands.
private struct OperationName: Decodable { var op: String }

/// One client of the local socket: line-delimited JSON commands in, one reply line each out.
/// Every command is authenticated: only the service user and its group can open the socket.
struct SocketSession {
    let descriptor: Int32
    let daemon: SwitchboardDaemon

    func run() async {
        let writer = ConnectionWriter(descriptor: descriptor)
        defer { close(descriptor) }
        for await line in FileDescriptorLines(descriptor: descriptor, maximumLineLength: 64 * 1024) where !line.isEmpty {
            let reply = await handle(line)
            guard await writer.write(ControlLineProtocol.encodeLine(reply)) else { return }
        }
    }

    private func handle(_ line: Substring) async -> SocketReply {
        guard let runtime = daemon.runtime else { return .failure(code: "unavailable", message: "switchboardd is reloading; try again") }
        if (try? JSONDecoder().decode(OperationName.self, from: Data(line.utf8)))?.op == "devices" {
            var reply = SocketReply(ControlReply())
            reply.devices = runtime.hub.outputValues().map { SocketReply.DeviceValue(id: $0.id, value: $0.value) }
            return reply
        }
        switch ControlLineProtocol.decodeCommand(line) {
        case .failure(let error):
            return SocketReply(error.reply)
        case .success(let command):
            let reply = await runtime.handler.handle(command)
            var socketReply = SocketReply(reply)
            switch command.op {
            case .place, .configure, .remove, .lock, .unlock:
                if reply.ok {
                    do { try await runtime.persistRuntimeState() } catch { daemon.log(.error, "state not saved: \(error)") }
                }
            case .status:
                socketReply.node = runtime.configuration.node
                socketReply.devices = runtime.hub.outputValues().map { SocketReply.DeviceValue(id: $0.id, value: $0.value) }
            default:
                break
            }
            if command.op == .perform || command.op == .lock || command.op == .unlock {
                let what = command.id.map { "\(command.op.rawValue) \($0) \(command.request ?? "")" } ?? command.op.rawValue
                daemon.log(reply.ok ? .info : .warning, reply.ok ? "cli: \(what)" : "cli: \(what) refused: \(reply.error?.message ?? "")")
            }
            return socketReply
        }
    }
}
