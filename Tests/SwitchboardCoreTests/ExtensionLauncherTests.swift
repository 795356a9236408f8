import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// switchboard-extension-launcher run directly, as systemd runs it for each connection to
/// switchboard-extension.socket (its standard input and output one end of a socket pair, the test
/// holding the daemon's end): it refuses executables outside its allowed folders, gives the
/// extension a clean environment, and leaves nothing running when the daemon's end closes.
@Suite(.timeLimit(.minutes(1)))
struct ExtensionLauncherTests {
    /// A launcher on one end of a socket pair; the test holds the other end (the daemon's).
    final class Launch: @unchecked Sendable {
        // Invariant: used by the owning test only.
        let daemonEnd: Int32
        var pid: pid_t?
        let errorLog: String

        init(allowing folder: String, environment: [String] = ["PATH=/usr/bin:/bin", "NOTIFY_SOCKET=/run/systemd/notify", "SWITCHBOARD_SECRET=leaked"]) throws {
            signal(SIGPIPE, SIG_IGN)
            let pair = try SystemCall.unixStreamSocketPair()
            let ends = [pair.0, pair.1]
            errorLog = folder + "/../launcher-\(UUID().uuidString.prefix(6)).log"
            let errors = open(errorLog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            defer { close(errors); close(ends[1]) }
            switch ProcessSpawn.spawn(BuiltProducts.path(of: "switchboard-extension-launcher"), ["--allow", folder],
                                      standardInput: ends[1], standardOutput: ends[1], standardError: errors, environment: environment) {
            case .success(let child): pid = child
            case .failure(let error): close(ends[0]); throw HarnessError(error.description)
            }
            daemonEnd = ends[0]
        }

        deinit {
            if let pid { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
            close(daemonEnd)
        }

        func request(_ executable: String, _ arguments: [String] = []) -> ExtensionLaunch.Answer? {
            try? SystemCall.writeAll(ExtensionLaunch.encodeLine(ExtensionLaunch.Request(id: "test", executable: executable, arguments: arguments)), to: daemonEnd)
            guard case .success(let line) = ExtensionLaunch.readLine(from: daemonEnd, timeout: 10_000) else { return nil }
            return ExtensionLaunch.decode(ExtensionLaunch.Answer.self, line)
        }

        /// The next line from the extension.
        func line() -> String? {
            guard case .success(let line) = ExtensionLaunch.readLine(from: daemonEnd, timeout: 10_000) else { return nil }
            return String(decoding: line, as: UTF8.self)
        }

        /// The launcher's exit status once it has exited within `seconds`; nil if it is still running.
        func exitStatus(within seconds: Double) async -> Int32? {
            guard let pid else { return nil }
            var status: Int32 = 0
            guard await eventually(within: .seconds(seconds), { waitpid(pid, &status, WNOHANG) == pid }) else { return nil }
            self.pid = nil
            return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }

        var log: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }
    }

    /// A folder of allowed extensions, with `scripts` (name: body) as executable shell scripts.
    func allowedFolder(_ scripts: [String: String]) throws -> String {
        let base = NSTemporaryDirectory() + "switchboard-launcher-" + UUID().uuidString.prefix(8)
        let folder = base + "/libexec"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, body) in scripts {
            // Written through a close-on-exec descriptor: one that a process spawned meanwhile
            // inherited would keep the file open for writing, and executing it would fail (ETXTBSY).
            let file = open(folder + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
            guard file >= 0, (try? SystemCall.writeAll(Array(("#!/bin/sh\n" + body + "\n").utf8), to: file)) != nil else { throw HarnessError("cannot write \(name)") }
            close(file)
        }
        return folder
    }

    /// Whether a process is gone (not even a zombie left), waiting up to `seconds`.
    func gone(_ pid: pid_t, within seconds: Double) async -> Bool {
        await eventually(within: .seconds(seconds)) {
            // A zombie of ours is gone once reaped; one of another parent's is reaped by it.
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)
            do throws(Errno) { try SystemCall.kill(pid, 0) } catch .noSuchProcess { return true } catch {}
            return false
        }
    }

    @Test func refusesAnExecutableOutsideTheAllowedFolders() async throws {
        let folder = try allowedFolder([:])
        defer { try? FileManager.default.removeItem(atPath: folder + "/..") }
        // A symbolic link inside the folder does not make a program outside it allowed.
        try FileManager.default.createSymbolicLink(atPath: folder + "/shell", withDestinationPath: "/bin/sh")
        for executable in ["/bin/sh", folder + "/shell", folder + "/../libexec/../escape", "relative/path"] {
            let launch = try Launch(allowing: folder)
            let answer = launch.request(executable, ["-c", "echo escaped"])
            #expect(answer?.launched == false, "\(executable): \(String(describing: answer))")
            #expect(answer?.error?.contains("install it in \(folder)") == true, "\(executable): \(answer?.error ?? "no answer")")
            #expect(await launch.exitStatus(within: 5) == 2, "\(executable)")
            #expect(launch.line() == nil, "\(executable): something ran")
        }
    }

    @Test func runsAnAllowedExtensionOnTheConnectionWithACleanEnvironment() async throws {
        let folder = try allowedFolder(["echo": "echo started\nread line\necho \"got $line\"\nenv | sort | tr '\\n' ' '; echo\nexit 3"])
        defer { try? FileManager.default.removeItem(atPath: folder + "/..") }
        let launch = try Launch(allowing: folder)
        let answer = launch.request(folder + "/echo")
        #expect(answer?.launched == true, "\(String(describing: answer))")
        #expect(answer?.uid == getuid())
        #expect(launch.line() == "started", "\(launch.log)")
        try? SystemCall.writeAll(Array("hello\n".utf8), to: launch.daemonEnd)
        #expect(launch.line() == "got hello")
        let environment = launch.line() ?? ""
        #expect(!environment.contains("NOTIFY_SOCKET") && !environment.contains("SWITCHBOARD_SECRET"), "\(environment)")
        #expect(environment.contains("PATH=/usr/local/bin:/usr/bin:/bin"), "\(environment)")
        // The extension exited: so does the launcher, and the daemon's end reads the end.
        #expect(await launch.exitStatus(within: 5) == 1)
        #expect(launch.line() == nil)
        #expect(launch.log.contains("exited with status 3"), "\(launch.log)")
    }

    @Test func stopsTheExtensionAndItsChildrenWhenTheDaemonsEndCloses() async throws {
        // It ignores SIGTERM, and leaves a child running: both must go.
        let folder = try allowedFolder(["stubborn": "trap '' TERM\nsleep 1000 &\necho \"$$ $!\"\nwhile :; do sleep 1; done"])
        defer { try? FileManager.default.removeItem(atPath: folder + "/..") }
        let launch = try Launch(allowing: folder)
        #expect(launch.request(folder + "/stubborn")?.launched == true)
        let pids = (launch.line() ?? "").split(separator: " ").compactMap { pid_t($0) }
        try #require(pids.count == 2, "the extension said no pids")
        #expect(kill(pids[0], 0) == 0 && kill(pids[1], 0) == 0)
        // Still running while the daemon's end is open.
        #expect(await launch.exitStatus(within: 1) == nil)
        _ = shutdown(launch.daemonEnd, Int32(SHUT_RDWR))
        #expect(await launch.exitStatus(within: 8) == 0, "the launcher did not exit: \(launch.log)")
        #expect(await gone(pids[0], within: 5), "the extension \(pids[0]) is still there")
        #expect(await gone(pids[1], within: 5), "the extension's child \(pids[1]) is still there")
        #expect(launch.log.contains("the daemon's end closed"), "\(launch.log)")
    }

    @Test func aLauncherKilledOutrightTakesItsExtensionAlong() async throws {
        // It ignores SIGTERM; the launcher gets no chance to stop it.
        let folder = try allowedFolder(["stubborn": "trap '' TERM\necho \"$$\"\nwhile :; do sleep 1; done"])
        defer { try? FileManager.default.removeItem(atPath: folder + "/..") }
        let launch = try Launch(allowing: folder)
        #expect(launch.request(folder + "/stubborn")?.launched == true)
        let extensionPID = try #require(pid_t(launch.line() ?? ""), "the extension said no pid")
        let launcher = try #require(launch.pid)
        kill(launcher, SIGKILL)
        let ended = await gone(extensionPID, within: 5)
        #expect(ended, "the extension \(extensionPID) outlived its launcher")
        if !ended { kill(extensionPID, SIGKILL) }
    }
}
