import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The local socket against clients that misbehave: too many connections, too few descriptors,
/// lines too long. The daemon answers, refuses with a reason, and never crashes.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SocketLimitsTests {
    func reply(_ line: String?) -> SocketReply? {
        line.flatMap { try? JSONDecoder().decode(SocketReply.self, from: Data($0.utf8)) }
    }

    @Test func connectionsPastTheUsersLimitAreRefusedWithAReason() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        // Sixteen connections, each served. The start's own CLI connection may still count
        // against the user for a moment after the CLI has gone (the daemon has not read its end
        // yet): a connection refused as busy meanwhile is opened again.
        var held: [RawSocketConnection] = []
        var refusedWhileTheStartsConnectionLingered = 0
        while held.count < 16, refusedWhileTheStartsConnectionLingered < 50 {
            let connection = try #require(RawSocketConnection(path: daemon.socketPath))
            #expect(connection.send(#"{"op":"status"}"# + "\n"))
            let answer = reply(connection.readLine())
            if answer?.node == "garage-pi" {
                held.append(connection)
            } else {
                #expect(answer?.error?.code == "busy", "\(String(describing: answer))")
                refusedWhileTheStartsConnectionLingered += 1
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(held.count == 16)

        let seventeenth = try #require(RawSocketConnection(path: daemon.socketPath))
        let refused = reply(seventeenth.readLine())
        #expect(refused?.error?.code == "busy")
        #expect(refused?.error?.message == "user \(getuid()) has 16 connections open already, the most one user may; close some and try again")
        #expect(seventeenth.readLine(timeout: .seconds(2)) == nil, "and closed")

        held.removeAll()
        #expect(await daemon.waitUntil { await daemon.cli(["status"]).status == 0 })
    }

    @Test func clientsNeverTakeTheDaemonsLastFileDescriptors() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        // Leave the running daemon room for two clients past the descriptors it keeps for itself:
        // a new descriptor takes the lowest free number, and the kernel refuses one at or above
        // the limit (the daemon may have closed lower ones since it started).
        let headroom = UnixSocketListener.descriptorHeadroom
        let pid = try #require(daemon.pid)
        let open = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
        var free: [Int] = []
        var number = 0
        while free.count < headroom + 3 {
            if !open.contains(number) { free.append(number) }
            number += 1
        }
        let limit = free[headroom + 2]
        #expect(await ChildProcess.run("/usr/bin/prlimit", ["--pid", String(pid), "--nofile=\(limit)"]).status == 0)
        var held: [RawSocketConnection] = []
        for _ in 0..<16 { if let connection = RawSocketConnection(path: daemon.socketPath) { held.append(connection) } }
        #expect(held.count == 16, "the kernel queues each connection until the daemon accepts it")
        for connection in held { connection.send(#"{"op":"status"}"# + "\n") }
        // Accepted in order: the first connection left without an answer shows where accepting
        // paused (reading on would only hold a test thread for half a second per connection).
        var answered: [SocketReply] = []
        for connection in held {
            guard let answer = reply(connection.readLine(timeout: .milliseconds(500))) else { break }
            answered.append(answer)
        }
        #expect(answered.count < 16, "accepting went on into the daemon's own descriptors (descriptors \(open.sorted()) open, limit \(limit))")
        #expect(await daemon.waitUntil { daemon.log.contains("descriptors left, which the daemon keeps for itself; accepting pauses 100 ms at a time until more are free") }, "\(daemon.log)")
        // libdispatch opens a file each second to watch its threads and stops the process when it
        // cannot: descriptors stay free for it while the clients wait.
        let left = limit - Self.descriptorNumbers(of: pid).filter { $0 < limit }.count
        #expect(left >= headroom / 2, "\(left) descriptors left while clients wait (open now: \(Self.descriptors(of: pid)))")
        try await Task.sleep(for: .seconds(2))
        #expect(daemon.pid.map { kill($0, 0) == 0 } == true, "still running")
        held.removeAll()
        // Each status is a CLI process, seconds each under a sanitizer's load: 30 s for a few.
        #expect(await daemon.waitUntil(timeout: .seconds(30)) { await daemon.cli(["status"]).status == 0 },
                "answers again once descriptors are free (open now: \(Self.descriptors(of: pid))): \(daemon.log)")
    }

    /// The numbers of the process's open descriptors (its /proc/PID/fd entries).
    static func descriptorNumbers(of pid: pid_t) -> [Int] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).compactMap(Int.init).sorted()
    }

    /// What the process's open descriptors are, by number (its /proc/PID/fd links).
    static func descriptors(of pid: pid_t) -> String {
        descriptorNumbers(of: pid).map { "\($0) \((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) ?? "?")" }
            .joined(separator: ", ")
    }

    @Test func aLineTooLongGetsAReplyAndTheConnectionGoesOn() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        let connection = try #require(RawSocketConnection(path: daemon.socketPath))
        #expect(connection.send(String(repeating: "x", count: 70_000) + "\n"))
        let tooLong = reply(connection.readLine())
        #expect(tooLong?.error?.code == "lineTooLong")
        #expect(tooLong?.error?.message == "a command line longer than 65536 bytes was ignored")
        #expect(connection.send(#"{"op":"status"}"# + "\n"))
        #expect(reply(connection.readLine())?.node == "garage-pi")
    }

    @Test func aClientThatSendsWithoutReadingIsHeldBackByItsOwnSocket() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try await daemon.start()
        let connection = try #require(RawSocketConnection(path: daemon.socketPath))
        _ = fcntl(connection.descriptor, F_SETFL, fcntl(connection.descriptor, F_GETFL) | O_NONBLOCK)
        let line = Array((#"{"op":"status"}"# + "\n").utf8)
        let chunk = [UInt8]((0..<4096).flatMap { _ in line })
        var accepted = 0
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, accepted < 512 << 20 {
            let written = chunk.withUnsafeBytes { send(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { accepted += written } else { usleep(1000) }
        }
        #expect(accepted < 4 << 20, "the daemon stopped reading a client that does not read its replies: \(accepted) bytes taken")
        #expect(await daemon.cli(["status"]).status == 0, "and serves others meanwhile")
    }
}
