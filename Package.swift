// swift-tools-version:6.0
import PackageDescription

/// Switchboard: Apple's Controls model (ControlKit) on Linux boards, a daemon that binds controls
/// to GPIO lines and MQTT topics, and its command-line client.
///
/// Layers, bottom to top:
/// - `SwitchboardSupport`: time (an erased `Clock`), backoff and coalescing state machines, no C.
/// - `ControlKitCore`: the pure model that mirrors WidgetKit/AppIntents controls, no C, on
///   FoundationEssentials; `ControlKit`: what control code imports, ControlKitCore and Foundation.
/// - `CGPIOD` → `CGPIODAdapter` → `SwitchboardGPIO`: libgpiod 1.x or 2.x behind one C adapter, and
///   the simulated chip.
/// - `SwitchboardTesting`: the test doubles shipped as a library (manual clock, recorders).
/// - `CCrypto`, `CAvahi`, `CQREncode` → `SwitchboardHomeKit`: libcrypto, Avahi's client and
///   libqrencode, and the HomeKit Accessory Protocol's primitives, pairing, discovery and setup
///   payload on them (docs/homekit.md); the daemon's bridge is in `SwitchboardCore`.
let package = Package(
    name: "Switchboard",
    products: [
        .library(name: "ControlKit", targets: ["ControlKit"]),
        // The daemon's core, for programs that embed a Swift bundle in the daemon
        // (`SwitchboardDaemon.main(bundle:)`) and for packages that build on it.
        .library(name: "SwitchboardCore", targets: ["SwitchboardCore"]),
        .executable(name: "switchboardd", targets: ["switchboardd"]),
        .executable(name: "switchboard", targets: ["switchboard"]),
        .library(name: "SwitchboardGPIO", targets: ["SwitchboardGPIO"]),
        .library(name: "SwitchboardMQTT", targets: ["SwitchboardMQTT"]),
        .library(name: "SwitchboardTesting", targets: ["SwitchboardTesting"]),
    ],
    targets: [
        // fork-to-exec in C for children that get only what they are given (ProcessSpawn).
        .target(name: "CSpawn"),
        // The test process's environment, set before main (SwitchboardTesting only).
        .target(name: "CTestProcess"),
        .target(name: "SwitchboardSupport", dependencies: ["CSpawn"]),
        .target(name: "ControlKitCore", dependencies: ["SwitchboardSupport"]),
        .target(name: "ControlKit", dependencies: ["ControlKitCore"]),

        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // Every libgpiod call, in C: compiled against whichever gpiod.h the machine has
        // (libgpiod 1.x on Debian 12 / Pi OS Bookworm, 2.x on Debian 13 / Pi OS Trixie).
        .target(name: "CGPIODAdapter", dependencies: ["CGPIOD"]),
        .target(name: "SwitchboardGPIO", dependencies: ["CGPIODAdapter", "SwitchboardSupport"]),

        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(name: "SwitchboardMQTT", dependencies: ["CMosquitto", "SwitchboardSupport"]),

        // OpenSSL's libcrypto 3.x: every call in SwitchboardHomeKit's LibCrypto.swift.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Avahi's client library: every call in SwitchboardHomeKit's LibAvahi.swift (discovery).
        // No pkgConfig: avahi-client.pc adds only -D_REENTRANT (a flag SwiftPM refuses, with a
        // warning on every build) to what the module map links.
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // libqrencode: every call in SwitchboardHomeKit's LibQREncode.swift (the setup code's QR code).
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // The HomeKit Accessory Protocol: TLV8, SRP-6a, pair-setup and pair-verify, discovery, the
        // setup payload (docs/homekit.md).
        .target(name: "SwitchboardHomeKit", dependencies: ["CCrypto", "CAvahi", "CQREncode", "SwitchboardSupport"]),

        // devices.json as values: the JSON parser, the loader, the settings; nothing that runs.
        .target(name: "SwitchboardConfiguration", dependencies: ["ControlKitCore", "SwitchboardGPIO", "SwitchboardHomeKit", "SwitchboardSupport"]),
        // Control extensions hosted as processes or systemd units, and the sandbox they run in.
        .target(name: "SwitchboardExtensionHost", dependencies: ["ControlKitCore", "SwitchboardConfiguration", "SwitchboardSupport"]),
        // The daemon's core: devices, state, the broker side, the local socket, the service tree.
        .target(
            name: "SwitchboardCore",
            dependencies: ["ControlKitCore", "SwitchboardConfiguration", "SwitchboardExtensionHost", "SwitchboardGPIO", "SwitchboardHomeKit", "SwitchboardMQTT", "SwitchboardSupport"],
            plugins: ["BuildCommitPlugin"]
        ),
        // Writes the commit SwitchboardCore is built from (`Switchboard.buildCommit`) before each
        // build, for `--version`.
        .plugin(name: "BuildCommitPlugin", capability: .buildTool(), path: "Sources/BuildCommitPlugin"),

        .executableTarget(name: "switchboardd", dependencies: ["SwitchboardCore"]),
        .executableTarget(name: "switchboard", dependencies: ["ControlKitCore", "SwitchboardConfiguration", "SwitchboardCore", "SwitchboardHomeKit", "SwitchboardMQTT", "SwitchboardSupport"]),
        // The main process of a switchboard-extension@.service instance: runs one control
        // extension on the connection systemd passes it (deploy/switchboard-extension@.service).
        .executableTarget(name: "switchboard-extension-launcher", dependencies: ["SwitchboardSupport"]),

        .target(name: "SwitchboardTesting", dependencies: ["CTestProcess", "SwitchboardSupport", "ControlKitCore", "SwitchboardGPIO", "SwitchboardMQTT"]),

        // The team's example bundle, in the seeds' style, compiled in Swift 6 mode.
        .target(name: "HomeControlsExample", dependencies: ["ControlKit"], path: "Examples/HomeControls"),
        // The example bundle as a control extension: an executable whose `@main` is the bundle.
        .executableTarget(name: "home-controls", dependencies: ["ControlKit", "HomeControlsExample"], path: "Examples/HomeControlsExtension"),
        // README's ControlKit example, verbatim: its bundle embedded in the daemon
        // (`SwitchboardDaemon.main(bundle:)`), switching devices.json's relay "porch".
        .executableTarget(name: "porch-daemon", dependencies: ["ControlKit", "SwitchboardCore"], path: "Examples/PorchDaemon"),
        // Apple's own sample code from the seeds, verbatim but for its imports, in Swift 5 mode.
        .target(
            name: "SeedSamples",
            dependencies: ["ControlKit"],
            path: "Examples/SeedSamples",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),

        // A control extension that misbehaves on demand, for the daemon's extension tests.
        .executableTarget(name: "faulty-extension", dependencies: ["ControlKit", "PushedControl"], path: "Tests/Fixtures/FaultyExtension"),
        // A control extension that tries what an attacker's would (descriptors, environment, orphans,
        // a fork bomb, device calls while locked), for the daemon's sandbox tests.
        .executableTarget(name: "hostile-extension", dependencies: ["ControlKit"], path: "Tests/Fixtures/HostileExtension"),
        // A control that takes push reloads (`ControlPushHandler`), and a daemon embedding it.
        .target(name: "PushedControl", dependencies: ["ControlKit"], path: "Tests/Fixtures/PushedControl"),
        .executableTarget(name: "push-daemon", dependencies: ["PushedControl", "SwitchboardCore"], path: "Tests/Fixtures/PushDaemon"),
        // A control extension whose `@main` is a single control (`ControlWidget.main()`).
        .executableTarget(name: "single-control", dependencies: ["ControlKit"], path: "Tests/Fixtures/SingleControl"),

        // Benchmarks: `swift run -c release switchboard-bench` (BENCHMARKS.md).
        .executableTarget(name: "switchboard-bench", dependencies: ["SwitchboardConfiguration", "SwitchboardCore", "SwitchboardGPIO", "SwitchboardMQTT", "SwitchboardSupport", "SwitchboardTesting", "faulty-extension"]),
        // The benchmark's floor: a minimal C libmosquitto client answering each command at once.
        .executableTarget(name: "switchboard-bench-floor", dependencies: ["CMosquitto"]),

        // The parsers of outside input under libFuzzer (`deploy/fuzz.sh`); without the fuzzer it
        // replays saved inputs.
        .executableTarget(name: "switchboard-fuzz", dependencies: ["SwitchboardConfiguration", "SwitchboardCore", "ControlKitCore", "SwitchboardHomeKit"]),

        .testTarget(
            name: "ControlKitTests",
            dependencies: ["ControlKit", "ControlKitCore", "SwitchboardSupport", "SwitchboardTesting", "HomeControlsExample", "SeedSamples", "home-controls", "single-control"]
        ),
        .testTarget(name: "SwitchboardSupportTests", dependencies: ["SwitchboardSupport", "SwitchboardTesting"]),
        .testTarget(name: "SwitchboardMQTTTests", dependencies: ["SwitchboardMQTT", "SwitchboardSupport", "SwitchboardTesting"]),
        .testTarget(name: "SwitchboardGPIOTests", dependencies: ["SwitchboardGPIO", "SwitchboardTesting"]),
        .testTarget(name: "SwitchboardHomeKitTests", dependencies: ["SwitchboardHomeKit", "SwitchboardSupport", "SwitchboardTesting"]),
        // Hardware in the loop: the chip behaviour checks on the simulated chip (anywhere) and on
        // the kernel's gpio-sim chips, with the daemon end to end, inside the HIL VM (`deploy/hil/test.sh`).
        .testTarget(name: "SwitchboardHILTests", dependencies: ["SwitchboardConfiguration", "SwitchboardCore", "SwitchboardSupport", "SwitchboardTesting", "switchboardd", "switchboard", "faulty-extension"]),
        .testTarget(name: "SwitchboardCoreTests", dependencies: ["SwitchboardConfiguration", "SwitchboardCore", "SwitchboardSupport", "SwitchboardTesting", "switchboardd", "switchboard", "faulty-extension", "hostile-extension", "home-controls", "porch-daemon", "push-daemon", "switchboard-extension-launcher"], resources: [.copy("Corpus")]),
    ],
    swiftLanguageModes: [.v6]
)
