import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// Reloads at any rate: a storm of SIGHUPs while `switchboard apply` runs and MQTT commands come
/// cannot crash the daemon or leak, the CLI is answered throughout, the last file applied is the
/// one that serves, and SIGTERM in the middle of it all stops the daemon cleanly.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ReloadStormTests {
    static let base = MQTTEndToEndTests.base

    /// The sample on the broker's port, with the fan titled `title`.
    static func configuration(port: Int, title: String) -> String {
        MQTTEndToEndTests().configuration(port: port).replacingOccurrences(of: #""title": "Attic Fan""#, with: #""title": "\#(title)""#)
    }

    @Test func aThousandSIGHUPsWithConcurrentAppliesNeitherCrashNorLeak() async throws {
        // The observer hears every message of the node, from a test process as loaded as the
        // daemon: past mosquitto's default queue of 1000 per client it would lose some to the broker.
        let broker = try await MosquittoBroker(maxQueuedMessages: 1_000_000)
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port, title: "Fan 0"))
        try await daemon.start()
        let pid = try #require(daemon.pid)
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/#")
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        // Warm up (the first reloads fill caches that later ones reuse), then measure.
        for _ in 0..<20 { #expect(await daemon.cli(["apply"]).status == 0) }
        let before = Self.usage(of: pid)
        let reloadsBefore = Self.reloads(in: daemon.log)

        // As fast as the daemon takes them: the kernel keeps one pending SIGHUP, so each is sent
        // after a short pause, lest a thousand collapse into a handful.
        let storm = Task {
            _ = await onThread {
                for _ in 0..<1000 {
                    kill(pid, SIGHUP)
                    usleep(1000)
                }
            }
        }
        // Commands keep coming over MQTT, each handled by whichever configuration serves.
        let commands = Task.detached {
            var transaction = 0
            while !Task.isCancelled {
                transaction += 1
                observer.publish("\(Self.base)/controls/porch/set", #"{"value": \#(transaction % 2 == 0), "transaction": \#(transaction)}"#)
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        // The CLI is answered throughout.
        let statuses = Task.detached {
            var failures: [String] = []
            while !Task.isCancelled {
                let status = await daemon.cli(["status"])
                if status.status != 0 { failures.append(status.stderr) }
            }
            return failures
        }
        // The signals alone reload, before any apply could share a reload with them.
        #expect(await daemon.waitUntil { Self.reloads(in: daemon.log) > reloadsBefore }, "no reload from the SIGHUPs")
        for round in 1...5 {
            try daemon.writeConfiguration(Self.configuration(port: broker.port, title: "Fan \(round)"))
            let applied = await daemon.cli(["apply"])
            #expect(applied.status == 0, "apply \(round): \(applied.stderr)\n\(daemon.log.suffix(3000))")
            #expect(applied.stdout.hasPrefix("applied"), "apply \(round): \(applied.stdout)")
        }
        await storm.value
        commands.cancel()
        await commands.value
        // Whatever reload is still pending ends; then the file serves as it is.
        let settled = await daemon.cli(["apply"])
        #expect(settled.status == 0 && settled.stdout == "applied: nothing changed\n", "\(settled.stdout)\(settled.stderr)")
        statuses.cancel()
        let failures = await statuses.value
        #expect(failures.isEmpty, "status failed \(failures.count) times: \(failures.prefix(3))")
        let served = await observer.waitFor("\(Self.base)/controls/fan") { $0.presentation?.title == "Fan 5" }
        #expect(served != nil, "the last file applied serves; the fan's titles seen: \(observer.messages.filter { $0.topic == "\(Self.base)/controls/fan" }.map { $0.presentation?.title ?? "?" }.suffix(8)); the broker: \(broker.logLines { $0.contains("dropped") })")
        // A hundred more reloads, one after the other: a leak per reload would show.
        for _ in 0..<100 { #expect(await daemon.cli(["apply"]).status == 0) }

        let after = Self.usage(of: pid)
        let reloads = Self.reloads(in: daemon.log) - reloadsBefore
        print("storm: \(reloads) reloads; descriptors \(before.descriptors) → \(after.descriptors), RSS \(before.residentKiB) → \(after.residentKiB) KiB")
        // Each of the 106 applies waited for a reload that began after it asked; SIGHUPs and
        // applies that arrive together share one (on a loaded machine the five applies can cover
        // the whole storm), so the signals' own are at least the one seen above.
        #expect(reloads >= 107, "the storm reloaded \(reloads) times")
        #expect(after.descriptors <= before.descriptors + 2, "descriptors before \(before.descriptors), after \(after.descriptors)")
        // Under a sanitizer freed memory sits in quarantine: resident memory says nothing there.
        #expect(Sanitizers.active || after.residentKiB <= before.residentKiB + 4 * 1024, "RSS before \(before.residentKiB) KiB, after \(after.residentKiB) KiB")
        #expect(await daemon.signal(SIGTERM) == 0, "\(daemon.log.suffix(3000))")
        #expect(!daemon.log.contains("Fatal error"), "\(daemon.log.suffix(3000))")
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }

    @Test func sigtermDuringAStormStopsCleanly() async throws {
        let broker = try await MosquittoBroker()
        let daemon = try DaemonHarness(configuration: Self.configuration(port: broker.port, title: "Fan 0"))
        try await daemon.start()
        let pid = try #require(daemon.pid)
        let observer = try await MQTTObserver(port: broker.port, filter: "\(Self.base)/#")
        #expect(await daemon.waitUntil { daemon.log.contains("mqtt: connected") })
        for transaction in 0..<300 {
            observer.publish("\(Self.base)/controls/porch/set", #"{"value": \#(transaction % 2 == 0), "transaction": \#(transaction)}"#)
            kill(pid, SIGHUP)
            usleep(1000)
        }
        // An apply waiting behind the storm is answered, whether it ran or the daemon stopped first.
        async let applied = daemon.cli(["apply"])
        for _ in 0..<200 {
            kill(pid, SIGHUP)
            usleep(1000)
        }
        #expect(await daemon.signal(SIGTERM) == 0, "\(daemon.log.suffix(3000))")
        let answer = await applied
        #expect(answer.status == 0 || answer.stderr.contains("stopping") || answer.status == 3, "\(answer)")
        #expect(!daemon.log.contains("Fatal error"), "\(daemon.log.suffix(3000))")
        #expect(daemon.log.contains("info: switchboardd stopped"))
    }

    /// How many reloads a log tells of.
    static func reloads(in log: String) -> Int { log.components(separatedBy: "info: reloading ").count - 1 }

    /// Open descriptors and resident memory of a process.
    static func usage(of pid: Int32) -> (descriptors: Int, residentKiB: Int) {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        // Read to its end: /proc files say they are empty.
        let status = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/status")).readToEnd()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        let resident = Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        return (descriptors, resident)
    }
}
