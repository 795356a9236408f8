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

    @Test func connectionsPastTheUsersLimitAreRefusedWithAReason() throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try daemon.start()
        var held: [RawSocketConnection] = []
        for _ in 0..<16 { held.append(try #require(RawSocketConnection(path: daemon.socketPath))) }
        // Each of them is served.
        #expect(held.allSatisfy { $0.send(#"{"op":"status"}"# + "\n") })
        #expect(held.compactMap { reply($0.readLine())?.node }.count == 16)

        let seventeenth = try #require(RawSocketConnection(path: daemon.socketPath))
        let refused = reply(seventeenth.readLine())
        #expect(refused?.error?.code == "busy")
        #expect(refused?.error?.message == "user \(getuid()) has 16 connections open already, the most one user may; close some and try again")
        #expect(seventeenth.readLine(timeout: .seconds(2)) == nil, "and closed")

        held.removeAll()
        #expect(daemon.waitUntil { daemon.cli(["status"]).status == 0 })
    }

    @Test func runningOutOfFileDescriptorsNeverCrashesTheDaemon() throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try daemon.start(wrapper: ["/usr/bin/prlimit", "--nofile=40"])
        var held: [RawSocketConnection] = []
        for _ in 0..<16 { if let connection = RawSocketConnection(path: daemon.socketPath) { held.append(connection) } }
        for connection in held { connection.send(#"{"op":"status"}"# + "\n") }
        let answered = held.compactMap { reply($0.readLine(timeout: .seconds(3))) }
        #expect(!answered.isEmpty)
        #expect(answered.count < 16, "some connections found no descriptor left (the limit is 40)")
        #expect(daemon.pid.map { kill($0, 0) == 0 } == true, "still running")
        held.removeAll()
        #expect(daemon.waitUntil { daemon.cli(["status"]).status == 0 }, "answers again once descriptors are free: \(daemon.log)")
    }

    @Test func aLineTooLongGetsAReplyAndTheConnectionGoesOn() throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        try daemon.start()
        let connection = try #require(RawSocketConnection(path: daemon.socketPath))
        #expect(connection.send(String(repeating: "x", count: 70_000) + "\n"))
        let tooLong = reply(connection.readLine())
        #expect(tooLong?.error?.code == "lineTooLong")
        #expect(tooLong?.error?.message == "a command line longer than 65536 bytes was ignored")
        #expect(connection.send(#"{"op":"status"}"# + "\n"))
        #expect(reply(connection.readLine())?.node == "garage-pi")
    }
}
