import ControlKit
import Foundation
@testable import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// Clients that hold a place without using it, secrets that are not the daemon's own, and requests
/// that would change nothing: each is refused or ended, with the reason.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct IdleClientsAndSecretsTests {
    func reply(_ line: String?) -> SocketReply? {
        line.flatMap { try? JSONDecoder().decode(SocketReply.self, from: Data($0.utf8)) }
    }

    @Test func idleConnectionsAreClosedSoTheyCannotLockTheUsersCLIOut() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        // 6 s: the refused CLI must reach the daemon before the first idle connection times out,
        // and a CLI started on a loaded machine (a sanitizer's whole suite) once took over 1 s; a
        // 4 s timeout once ran out before it.
        try await daemon.start(options: ["--socket-idle-timeout", "6s"])
        // The user's sixteen places, taken by connections that never send a request.
        var idle: [RawSocketConnection] = []
        for _ in 0..<16 { idle.append(try #require(RawSocketConnection(path: daemon.socketPath))) }
        let start = ContinuousClock.now
        let refused = await daemon.cli(["status"])
        #expect(refused.status != 0 && refused.stderr.contains("16 connections open already"), "locked out while the idle ones hold their places: \(refused)")
        // Once the timeout has passed, each idle connection is closed by the daemon (read: end of
        // file), and the CLI works again.
        #expect(await daemon.waitUntil(timeout: .seconds(20)) { await daemon.cli(["status"]).status == 0 })
        #expect(ContinuousClock.now - start >= .milliseconds(5_900), "not before the timeout")
        for connection in idle {
            #expect(connection.readLine(timeout: .seconds(5)) == nil, "closed without a reply")
        }
    }

    @Test func aSlowButActiveClientIsNotCut() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        // 2 s: room for a loaded machine's delays between one answer and the next request.
        try await daemon.start(options: ["--socket-idle-timeout", "2s"])
        let connection = try #require(RawSocketConnection(path: daemon.socketPath))
        // The client is a thread of its own: its pauses are the kernel's, not a task's sleep that
        // a pool busy with other suites can end seconds late, past the daemon's timeout.
        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<(answers: [String?], press: String?, closed: Bool, after: Bool), Never>) in
            Thread.detachNewThread {
                // A request every 500 ms for two timeouts: each is answered on the one connection.
                var answers: [String?] = []
                for _ in 0..<8 {
                    usleep(500_000)
                    answers.append(connection.send(#"{"op":"status"}"# + "\n") ? connection.readLine() : "not sent")
                }
                // A request that takes longer than the timeout to answer (a 2.5 s simulated press
                // of the Action button) is not cut either: only the time without a request counts.
                let press = connection.send(#"{"op":"button","id":"button","hold":"2500ms"}"# + "\n") ? connection.readLine() : "not sent"
                // Silent for longer than the timeout: closed.
                let closed = connection.readLine(timeout: .seconds(8)) == nil
                let after = !connection.send(#"{"op":"status"}"# + "\n") || connection.readLine(timeout: .seconds(2)) == nil
                continuation.resume(returning: (answers, press, closed, after))
            }
        }
        #expect(seen.answers.map { reply($0)?.node } == Array(repeating: "garage-pi", count: 8), "\(seen.answers)")
        #expect(reply(seen.press)?.ok == true, "\(String(describing: seen.press))")
        #expect(seen.closed)
        #expect(seen.after)
    }

    @Test func theIdleDeadlineCountsOnlyTimeWithoutARequest() {
        let start = ContinuousClock.now
        var idle = IdleDeadline(timeout: .seconds(30), openedAt: start)
        #expect(idle.check(at: start) == .waitUntil(start + .seconds(30)))
        #expect(idle.check(at: start + .seconds(29)) == .waitUntil(start + .seconds(30)))
        #expect(idle.check(at: start + .seconds(30)) == .close)
        idle.requestArrived()
        #expect(idle.check(at: start + .seconds(90)) == .waitUntil(start + .seconds(120)), "never while answering")
        idle.answered(at: start + .seconds(100))
        #expect(idle.check(at: start + .seconds(120)) == .waitUntil(start + .seconds(130)))
        #expect(idle.check(at: start + .seconds(130)) == .close)
    }

    @Test func configureWithoutAConfigurationIsRefusedWithTheFix() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        let connection = try #require(RawSocketConnection(path: daemon.socketPath))
        for line in [#"{"op":"configure","id":"kitchen"}"#, #"{"op":"configure","id":"kitchen","configuration":{}}"#] {
            #expect(connection.send(line + "\n"))
            let answer = reply(connection.readLine())
            #expect(answer?.ok == false && answer?.error?.code == "wrongRequest", "\(String(describing: answer))")
            #expect(answer?.error?.message.contains(#""configure" needs "configuration", the parameters to set"#) == true, "\(String(describing: answer))")
        }
        #expect(await daemon.cli(["status"]).status == 0)
    }

    /// A password file as devices.json names it, with this content, mode and owner.
    func passwordFile(in daemon: DaemonHarness, mode: mode_t, owner: uid_t? = nil) throws -> String {
        let path = daemon.directory + "/mqtt-password"
        try? FileManager.default.removeItem(atPath: path)
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
        if let owner { chown(path, owner, gid_t(owner)) }
        return path
    }

    func configuration(port: Int, passwordFile: String) -> String {
        DaemonEndToEndTests.sample.replacingOccurrences(
            of: #""port": 1883,"#, with: #""port": \#(port), "username": "garage-pi", "passwordFile": "\#(passwordFile)","#
        )
    }

    @Test func aPasswordFileMustBeTheDaemonsOwnPrivateFile() async throws {
        let broker = try await MosquittoBroker(users: ["garage-pi": "s3cret"])
        let daemon = try DaemonHarness(configuration: "")
        let switchboard = BuiltProducts.path(of: "switchboard")
        let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"

        // Readable by others: refused by check and by the daemon, with the chmod that fixes it.
        let open = try passwordFile(in: daemon, mode: 0o644)
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: open))
        let checked = await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"])
        #expect(checked.status == 4)
        #expect(checked.stderr.contains("mqtt.passwordFile: \(open) has mode 644: its group or others may use it, and a secret must be private; chmod 600 \(open)"), "\(checked.stderr)")
        await #expect(throws: HarnessError.self) { try await daemon.start() }
        #expect(daemon.log.contains("MQTT passwordFile: \(open) has mode 644"), "\(daemon.log)")

        // /etc/shadow, named directly or through a link: group-readable, never taken as a password.
        let link = daemon.directory + "/shadow-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/etc/shadow")
        for path in ["/etc/shadow", link] where FileManager.default.fileExists(atPath: "/etc/shadow") {
            try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: path))
            let shadow = await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"])
            #expect(shadow.status == 4)
            #expect(shadow.stderr.contains("mqtt.passwordFile: \(path) "), "\(shadow.stderr)")
            #expect(shadow.stderr.contains("has mode 640") || shadow.stderr.contains("cannot be read by \(user) (Permission denied)"), "\(shadow.stderr)")
        }

        // Another user's file, private to that user: refused (a root daemon could read it).
        if geteuid() == 0 {
            let others = try passwordFile(in: daemon, mode: 0o600, owner: 65534)
            try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: others))
            let owned = await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"])
            #expect(owned.status == 4)
            #expect(owned.stderr.contains("mqtt.passwordFile: \(others) is owned by "), "\(owned.stderr)")
            #expect(owned.stderr.contains("so another user controls this secret; chown \(user) \(others) && chmod 600 \(others)"), "\(owned.stderr)")

            // Another user's link to the daemon's own private file (a root daemon's key, say):
            // that user could point it anywhere, so it is not followed.
            let own = try passwordFile(in: daemon, mode: 0o600)
            let planted = daemon.directory + "/planted-link"
            try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: own)
            lchown(planted, 65534, 65534)
            try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: planted))
            let linked = await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"])
            #expect(linked.status == 4)
            #expect(linked.stderr.contains("mqtt.passwordFile: \(planted) is a symbolic link owned by nobody, who could point it at any file; name the file itself"), "\(linked.stderr)")
        }

        // Missing: the real reason, not "(Success)".
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: daemon.directory + "/missing"))
        let missing = await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"])
        #expect(missing.stderr.contains("mqtt.passwordFile: \(daemon.directory)/missing does not exist (No such file or directory); create it, owned by \(user) with mode 600"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("Success"))

        // The daemon's own private file: valid, and the daemon logs in with it.
        let good = try passwordFile(in: daemon, mode: 0o600)
        try daemon.writeConfiguration(configuration(port: broker.port, passwordFile: good))
        #expect(await DaemonHarness.run(switchboard, ["check", daemon.configPath, "--simulate"]).status == 0)
        try await daemon.start()
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected to 127.0.0.1:\(broker.port)") }, "\(daemon.log)")
    }

    @Test func aTLSKeyFileOthersCanReadIsRefused() async throws {
        let broker = try await MosquittoBroker(tls: true, clientCertificates: true)
        let key = broker.clientKeyFile
        chmod(key, 0o640)
        let daemon = try MQTTTLSTests().daemon(broker, caFile: broker.caFile, certificate: (broker.clientCertificateFile, key))
        let checked = await DaemonHarness.run(BuiltProducts.path(of: "switchboard"), ["check", daemon.configPath, "--simulate"])
        #expect(checked.status == 4)
        #expect(checked.stderr.contains("mqtt.tls.keyFile: \(key) has mode 640: its group or others may use it, and a secret must be private; chmod 600 \(key)"), "\(checked.stderr)")
        await #expect(throws: HarnessError.self) { try await daemon.start() }
        #expect(daemon.log.contains("MQTT tls.keyFile: \(key) has mode 640"), "\(daemon.log)")
    }
}
