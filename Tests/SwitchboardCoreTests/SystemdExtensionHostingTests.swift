import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// A real daemon with `--extension-socket`, as the shipped unit runs it, against a stand-in for
/// systemd's switchboard-extension.socket (`Accept=yes`: each connection gets a launcher of its
/// own, its standard input and output the connection): the extension's controls work through the
/// connection, an executable outside the launcher's allowed folder is refused with the reason in
/// `switchboard status`, and stopping the daemon ends every launcher and extension.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SystemdExtensionHostingTests {
    /// Accepts connections on a Unix socket and starts `switchboard-extension-launcher` on each,
    /// as systemd does for an `Accept=yes` socket.
    final class SocketActivator: @unchecked Sendable {
        let path: String
        let allowed: String
        private let listener: Int32
        // Invariant: touched under the lock only.
        private let launched = Locked<[pid_t]>([])
        let errorLog: String

        init(directory: String, allowing allowed: String) throws {
            path = directory + "/extension.sock"
            errorLog = directory + "/launchers.log"
            self.allowed = allowed
            let listener = try SystemCall.unixStreamSocket()
            self.listener = listener
            guard let address = UnixSocketAddress(path: path) else { throw HarnessError("\(path) is too long for a socket") }
            do {
                try SystemCall.bind(listener, to: address)
                try SystemCall.listen(listener, backlog: 16)
            } catch {
                throw HarnessError("cannot listen on \(path): \(error)")
            }
            let launched = self.launched, errorLog = self.errorLog
            DispatchQueue.global().async {
                while true {
                    guard let connection = try? SystemCall.accept(listener) else { return }
                    let errors = open(errorLog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
                    if case .success(let pid) = ProcessSpawn.spawn(BuiltProducts.path(of: "switchboard-extension-launcher"), ["--allow", allowed],
                                                                   standardInput: connection, standardOutput: connection, standardError: errors,
                                                                   environment: ["PATH=/usr/bin:/bin"]) {
                        launched.withLock { $0.append(pid) }
                    }
                    close(errors)
                    close(connection)
                }
            }
        }

        deinit {
            _ = shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            for pid in launched.withLock({ $0 }) { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        }

        /// The launchers started so far.
        var pids: [pid_t] { launched.withLock { $0 } }

        /// Whether every launcher has exited (reaping them) within `seconds`.
        func allExited(within seconds: Double) async -> Bool {
            await eventually(within: .seconds(seconds), every: .milliseconds(50)) {
                launched.withLock { pids -> Int in
                    pids.removeAll { pid in var status: Int32 = 0; return waitpid(pid, &status, WNOHANG) == pid }
                    return pids.count
                } == 0
            }
        }

        var log: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
    }

    @Test func extensionsRunThroughTheExtensionSocketAndEndWithTheDaemon() async throws {
        let outside = #", { "id": "outside", "executable": "/bin/true", "devices": [] }"#
        let file = ExtensionHostingTests().configuration(more: outside)
            .replacingOccurrences(of: #""devices": ["porch", "bell"], "timeout": "\#(TestTiming.seconds(2))s""#, with: #""devices": ["porch", "bell"], "timeout": "\#(TestTiming.seconds(2))s", "user": "nobody""#)
        let daemon = try DaemonHarness(configuration: file)
        let activator = try SocketActivator(directory: daemon.directory, allowing: BuiltProducts.directory)
        try await daemon.start(
            environment: ["SWITCHBOARD_TEST_EXTENSION_SOCKET": activator.path],
            wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" --extension-socket \"$SWITCHBOARD_TEST_EXTENSION_SOCKET\""]
        )
        #expect(await daemon.waitUntil { daemon.log.contains("extension faulty: running (systemd unit ") }, "\(daemon.log)")

        // Its controls work through the connection: the toggle's device call moves the relay.
        let on = await daemon.cli(["on", "swift-porch"])
        #expect(on.status == 0, "\(on.stderr)")
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).stdout.contains("output porch: on") })

        let status = await daemon.cli(["status"]).stdout
        // How it runs, and that devices.json's "user" is not used there.
        #expect(status.contains("extension faulty: systemd unit switchboard-extension@.service: own dynamic user (uid \(getuid())) (its \"user\": \"nobody\" is not used under systemd), own cgroup, no network"), "\(status)")
        // The launcher refuses a program outside its folder, and the status says why.
        #expect(status.contains("extension outside: could not start: switchboard-extension@.service refused it: extension outside: /bin/true"), "\(status)")
        #expect(status.contains("is not inside \(BuiltProducts.directory)"), "\(status)")

        // Stopping the daemon closes every connection: each launcher stops its extension and exits.
        #expect(activator.pids.count >= 2)
        #expect(await daemon.signal(SIGTERM) == 0)
        #expect(await activator.allExited(within: 10), "launchers still running: \(activator.pids)\n\(activator.log)")
        // Whether the launcher stopped it or it ended first on its closed connection, the end is the daemon's.
        #expect(activator.log.contains("extension faulty: the daemon's end closed; "), "\(activator.log)")
        #expect(!activator.log.contains("still running"), "\(activator.log)")
    }
}
