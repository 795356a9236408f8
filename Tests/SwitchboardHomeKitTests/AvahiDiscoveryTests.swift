import Foundation
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// `AvahiAdvertiser` against a real avahi-daemon (a private one, on a private D-Bus, in a network
/// namespace of its own: `PrivateAvahi`), seen by a real client of the LAN, `avahi-browse`; and
/// without avahi-daemon, or without any D-Bus at all.
// The trait's comment is a plain literal: Swift 6.0.3 crashes on an interpolation there.
@Suite(.serialized, .enabled(if: PrivateAvahi.unavailableReason == nil,
                             "no private avahi-daemon here: needs root, namespaces, avahi-daemon, avahi-utils, dbus, iproute2"),
       .timeLimit(.minutes(3)))
struct AvahiDiscoveryTests {
    let log = LogLines()

    init() { PrivateAvahi.pointSystemBusHere() }

    func record(_ name: String = "Switchboard Test") throws -> HAPServiceRecord {
        HAPServiceRecord(name: name, port: 51826, deviceID: "AA:BB:CC:DD:EE:FF", model: "Switchboard",
                         configurationNumber: 1, isPaired: false, setupID: try HAPSetupID("7OSX"))
    }

    /// The service `name` once avahi-browse resolves it so that `condition` holds.
    func browsed(_ avahi: PrivateAvahi, _ name: String, within timeout: Duration = .seconds(15),
                 until condition: @escaping (PrivateAvahi.BrowsedService) -> Bool = { _ in true }) async -> PrivateAvahi.BrowsedService? {
        var found: PrivateAvahi.BrowsedService?
        _ = await eventually(within: timeout, every: .milliseconds(200)) {
            found = await avahi.browse(HAPServiceRecord.serviceType).first { $0.name == name && condition($0) }
            return found != nil
        }
        return found
    }

    @Test func browserSeesTheServiceWithItsTXTThenThePairingThenTheWithdrawal() async throws {
        let avahi = try await PrivateAvahi()
        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(200), log: log.append)
        defer { advertiser.stop() }
        var record = try record()
        advertiser.advertise(record)

        let seen = try #require(await browsed(avahi, record.name), "avahi-browse never saw \"\(record.name)\"; log: \(log.lines)")
        #expect(seen.port == 51826)
        #expect(seen.txt == ["c#": "1", "ff": "0", "id": "AA:BB:CC:DD:EE:FF", "md": "Switchboard", "pv": "1.1",
                             "s#": "1", "sf": "1", "ci": "2", "sh": "XIonQA=="])
        #expect(await eventually(within: .seconds(5)) { advertiser.status == .advertised(name: record.name) })
        #expect(log.lines.contains { $0.contains("advertising \"Switchboard Test\"") })

        // Paired, and the accessories changed: sf 0 and c# 2, announced again under the same name.
        record.isPaired = true
        record.configurationNumber = 2
        advertiser.advertise(record)
        let updated = await browsed(avahi, record.name) { $0.txt["sf"] == "0" }
        let now = await avahi.browse(HAPServiceRecord.serviceType)
        #expect(updated?.txt["sf"] == "0", "sf never became 0: \(now)")
        #expect(updated?.txt["c#"] == "2")
        #expect(updated?.port == 51826)

        advertiser.withdraw()
        let gone = await eventually(within: .seconds(15), every: .milliseconds(200)) {
            await avahi.browse(HAPServiceRecord.serviceType).allSatisfy { $0.name != record.name }
        }
        let left = await avahi.browse(HAPServiceRecord.serviceType)
        #expect(gone, "still browsed after withdraw: \(left)")
        #expect(advertiser.status == .idle)
    }

    /// What aiohomekit's own discovery (python-zeroconf's mDNS queries, aiohomekit's
    /// `HomeKitService`) reads of the service, from inside avahi-daemon's network.
    func aiohomekitDiscovers(_ avahi: PrivateAvahi, _ name: String) async throws -> [String: Any] {
        let result = try await avahi.runInDaemonsNetwork(try #require(Aiohomekit.python), [Aiohomekit.folder + "/aiohomekit-discover.py", name, "3"])
        #expect(result.status == 0, "aiohomekit-discover.py: \(result.stderr)")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? "{}"
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit: run deploy/homekit/aiohomekit-venv.sh"))
    func aiohomekitsDiscoveryFindsTheBridgeUnpairedThenPairedThenNoMore() async throws {
        let avahi = try await PrivateAvahi()
        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(200), log: log.append)
        defer { advertiser.stop() }
        var record = try record()
        advertiser.advertise(record)
        #expect(await eventually(within: .seconds(10)) { advertiser.status == .advertised(name: record.name) }, "log: \(log.lines)")

        let found = try await aiohomekitDiscovers(avahi, record.name)
        #expect(found["found"] as? Bool == true, "aiohomekit: \(found)")
        #expect(found["id"] as? String == "aa:bb:cc:dd:ee:ff") // aiohomekit lower-cases it
        #expect(found["model"] as? String == "Switchboard")
        #expect(found["port"] as? Int == 51826)
        #expect(found["address"] as? String == "127.0.0.1")
        #expect(found["config_num"] as? Int == 1)
        #expect(found["state_num"] as? Int == 1)
        #expect(found["feature_flags"] as? Int == 0)
        #expect(found["status_flags"] as? Int == 1) // StatusFlags.UNPAIRED
        #expect(found["category"] as? Int == 2) // Categories.BRIDGE
        #expect(found["protocol_version"] as? String == "1.1")

        record.isPaired = true
        record.configurationNumber = 2
        advertiser.advertise(record)
        var paired: [String: Any] = [:]
        _ = await eventually(within: .seconds(10), every: .milliseconds(200)) {
            paired = (try? await aiohomekitDiscovers(avahi, record.name)) ?? [:]
            return paired["status_flags"] as? Int == 0
        }
        #expect(paired["status_flags"] as? Int == 0, "aiohomekit: \(paired)")
        #expect(paired["config_num"] as? Int == 2)

        advertiser.withdraw()
        var after: [String: Any] = [:]
        _ = await eventually(within: .seconds(15), every: .milliseconds(200)) {
            after = (try? await aiohomekitDiscovers(avahi, record.name)) ?? [:]
            return after["found"] as? Bool == false
        }
        #expect(after["found"] as? Bool == false, "aiohomekit still finds it: \(after)")
    }

    @Test func nameTakenOnThisHostIsReplacedByAvahisAlternative() async throws {
        let avahi = try await PrivateAvahi()
        let other = try avahi.publish(name: "Switchboard Test", type: HAPServiceRecord.serviceType, port: 40000, txt: ["sf=1"])
        defer { _ = other.stop() }
        #expect(await browsed(avahi, "Switchboard Test") { $0.port == 40000 } != nil, "avahi-publish: \(avahi.log("publish.log"))")

        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(200), log: log.append)
        defer { advertiser.stop() }
        advertiser.advertise(try record())
        let ours = await browsed(avahi, "Switchboard Test #2")
        #expect(ours?.port == 51826, "log: \(log.lines)")
        #expect(await eventually(within: .seconds(5)) { advertiser.status == .advertised(name: "Switchboard Test #2") })
        #expect(log.lines.contains { $0.contains("\"Switchboard Test\" is taken") && $0.contains("\"Switchboard Test #2\"") })
    }

    @Test(.enabled(if: Aiohomekit.python != nil, "no Python with aiohomekit's zeroconf: run deploy/homekit/aiohomekit-venv.sh"))
    func nameTakenOnTheNetworkIsReplacedByAvahisAlternative() async throws {
        let avahi = try await PrivateAvahi()
        // Another host's mDNS stack (python-zeroconf) holds the name on the network.
        let other = try avahi.startInDaemonsNetwork(try #require(Aiohomekit.python), [Aiohomekit.folder + "/mdns-publish.py", "Switchboard Test", "40000"],
                                                    logName: "other-host.log")
        defer { _ = other.stop() }
        #expect(await eventually(within: .seconds(10)) { avahi.log("other-host.log").contains("published") }, "\(avahi.log("other-host.log"))")

        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(200), log: log.append)
        defer { advertiser.stop() }
        advertiser.advertise(try record())
        #expect(await eventually(within: .seconds(15)) { advertiser.status == .advertised(name: "Switchboard Test #2") },
                "status: \(advertiser.status); log: \(log.lines)")
        #expect(log.lines.contains { $0.contains("\"Switchboard Test\" is taken on the network") && $0.contains("\"Switchboard Test #2\"") })
        #expect(await browsed(avahi, "Switchboard Test #2")?.port == 51826)
        // It keeps the name it took: an update is announced under "#2", not the taken name.
        var paired = try record()
        paired.isPaired = true
        advertiser.advertise(paired)
        #expect(await browsed(avahi, "Switchboard Test #2") { $0.txt["sf"] == "0" } != nil, "log: \(log.lines)")
        #expect(advertiser.status == .advertised(name: "Switchboard Test #2"))
    }

    @Test func withoutAnyDBusAdvertisingReturnsAtOnceAndSaysOnceHowToEnableDiscovery() async throws {
        // No bus listens at the address this process's Avahi clients use.
        #expect(!FileManager.default.fileExists(atPath: PrivateAvahi.busDirectory + "/bus"))
        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(100), log: log.append)
        defer { advertiser.stop() }
        let started = ContinuousClock.now
        advertiser.advertise(try record())
        advertiser.advertise(try record())
        // Waiting for Avahi would hold the caller for good; 2 s leaves room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(await eventually(within: .seconds(5)) {
            if case .waitingForAvahi = advertiser.status { return true } else { return false }
        })
        try await Task.sleep(for: .seconds(1)) // about ten more tries
        let advice = log.lines.filter { $0.contains("sudo apt install avahi-daemon && sudo systemctl enable --now avahi-daemon") }
        #expect(advice.count == 1, "log: \(log.lines)")
        #expect(advice.first?.contains("Switchboard Test") == true)
        #expect(advice.first?.contains("port 51826") == true)
    }

    @Test func daemonStartedLaterOrRestartedIsFollowed() async throws {
        let avahi = try await PrivateAvahi(daemon: false)
        let advertiser = try AvahiAdvertiser(retryInterval: .milliseconds(200), log: log.append)
        defer { advertiser.stop() }
        let record = try record()
        advertiser.advertise(record)
        #expect(await eventually(within: .seconds(5)) {
            if case .waitingForAvahi = advertiser.status { return true } else { return false }
        })
        #expect(log.lines.filter { $0.contains("apt install avahi-daemon") }.count == 1, "log: \(log.lines)")

        try await avahi.startDaemon()
        #expect(await browsed(avahi, record.name)?.port == 51826, "not advertised once avahi-daemon started; log: \(log.lines)")

        avahi.stopDaemon()
        #expect(await eventually(within: .seconds(10)) {
            if case .waitingForAvahi = advertiser.status { return true } else { return false }
        }, "status: \(advertiser.status)")
        #expect(log.lines.filter { $0.contains("apt install avahi-daemon") }.count == 2, "log: \(log.lines)")

        try await avahi.startDaemon()
        #expect(await browsed(avahi, record.name)?.txt["sf"] == "1", "not advertised again after avahi-daemon came back; log: \(log.lines)")
    }
}

/// The lines an advertiser logged.
extension AvahiDiscoveryTests {
    /// switchboardd with a homekit block advertises its bridge through the system's Avahi (here
    /// the private one, as its system bus): the Home app's browse finds it unpaired, with the
    /// port it serves on; stopped, it withdraws the service.
    @Test func theDaemonsBridgeIsAdvertisedWhileItServes() async throws {
        let avahi = try await PrivateAvahi()
        let port = try TestPort.free()
        let daemon = try DaemonHarness(configuration: """
        { "node": "porch-node", "chips": [{ "id": "main", "chip": "header" }],
          "devices": [ { "id": "porch", "name": "Porch Light", "type": "relay", "gpio": { "chip": "main", "line": 17 } } ],
          "controls": [ { "kind": "porch", "template": "toggle", "device": "porch" } ],
          "placements": [ { "id": "porch", "control": "porch" } ],
          "homekit": { "name": "Porch Bridge", "port": \(port), "setupCode": "031-45-154" } }
        """)
        try await daemon.start(environment: ["DBUS_SYSTEM_BUS_ADDRESS": PrivateAvahi.busAddress])
        let seen = try #require(await browsed(avahi, "Porch Bridge"), "never advertised; \(daemon.log)")
        #expect(seen.port == port)
        #expect(seen.txt["sf"] == "1" && seen.txt["ci"] == "2" && seen.txt["c#"] == "1" && seen.txt["md"] == "Switchboard", "\(seen.txt)")
        #expect(seen.txt["id"]?.count == 17 && seen.txt["sh"]?.isEmpty == false, "\(seen.txt)")
        #expect(await daemon.signal(SIGTERM) == 0, "\(daemon.log)")
        let gone = await eventually(within: .seconds(15), every: .milliseconds(200)) {
            await avahi.browse(HAPServiceRecord.serviceType).allSatisfy { $0.name != "Porch Bridge" }
        }
        #expect(gone, "still advertised after the daemon stopped")
    }
}

final class LogLines: Sendable {
    private let storage = Locked<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    @Sendable func append(_ line: String) { storage.withLock { $0.append(line) } }
}
