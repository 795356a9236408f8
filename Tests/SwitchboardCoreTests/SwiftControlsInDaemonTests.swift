import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import SwitchboardSupport
import Testing
@testable import SwitchboardConfiguration

/// A Swift control, as a user's bundle would have one.
struct DoorbellChime: ControlWidget {
    nonisolated static let chimes = Locked(0)
    nonisolated static let kind = "com.example.DoorbellChime"

    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: Self.kind) {
            ControlWidgetButton(action: RingChimeIntent()) {
                Label("Chime", systemImage: "bell")
            }
        }
        .displayName("Doorbell Chime")
    }
}

struct RingChimeIntent: AppIntent {
    static let title: LocalizedStringResource = "Ring Chime"
    func perform() async throws -> some IntentResult {
        DoorbellChime.chimes.withLock { $0 += 1 }
        return .result()
    }
}

struct ChimeBundle: WidgetBundle {
    var body: some Widget { DoorbellChime() }
}

@Suite struct SwiftControlsInDaemonTests {
    @Test @MainActor func swiftBundleControlsLiveBesideDevicesJSONControls() async throws {
        let sample = DaemonEndToEndTests.sample.replacingOccurrences(
            of: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }"#,
            with: #"{ "id": "action", "control": "porch-light", "space": "actionButton" }, { "id": "chime", "control": "com.example.DoorbellChime", "space": "controlCenter", "size": "small" }"#
        )
        let swiftControls = ChimeBundle().controlDefinitions
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(data: Data(sample.utf8)) }
        let configuration = try ConfigurationLoader.load(data: Data(sample.utf8), swiftKinds: swiftControls.map(\.kind))
        let chips: [String: any GPIOChip] = ["main": SimulatedGPIOChip(lineCount: 54)]
        let runtime = try await NodeRuntime(configuration: configuration, chips: chips, persisted: PersistedState(), stateFile: nil, extraControls: swiftControls, log: Log())
        defer { runtime.hub.shutdown() }

        let gallery = await runtime.center.gallery()
        #expect(gallery.map(\.kind) == ["porch-light", "fan", "garage-door", "light", DoorbellChime.kind])
        #expect(gallery.last?.displayName == "Doorbell Chime")
        let chime = try await runtime.center.presentation(of: "chime")
        #expect(chime.symbol == "bell" && chime.template == .button && chime.title == nil)
        let before = DoorbellChime.chimes.withLock { $0 }
        _ = try await runtime.center.perform("chime", .press)
        #expect(DoorbellChime.chimes.withLock { $0 } == before + 1)
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SystemdNotifyTests {
    @Test func daemonTellsSystemdItIsReadyAndStopping() async throws {
        let daemon = try DaemonHarness(configuration: DaemonEndToEndTests.sample)
        let path = daemon.directory + "/notify.sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in for (index, byte) in path.utf8.enumerated() { buffer[index] = byte } }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func receive() -> String {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        }
        try await daemon.start(environment: ["NOTIFY_SOCKET": path])
        #expect(receive() == "READY=1\nSTATUS=Serving garage-pi")
        #expect(await daemon.signal(SIGTERM) == 0)
        #expect(receive() == "STOPPING=1")
    }
}
