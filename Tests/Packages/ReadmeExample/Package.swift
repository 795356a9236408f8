// swift-tools-version:6.0
import PackageDescription

/// README's ControlKit example as a package of its own, as someone using Switchboard would write
/// it: Switchboard is a dependency (here by path), ControlKit and SwitchboardCore its products.
/// `deploy/test.sh` builds it; its sources are README's, word for word (ReadmeExampleTests).
let package = Package(
    name: "ReadmeExample",
    dependencies: [
        .package(name: "Switchboard", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "HomeDaemon",
            dependencies: [
                .product(name: "ControlKit", package: "Switchboard"),
                .product(name: "SwitchboardCore", package: "Switchboard"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
