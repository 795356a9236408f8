#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Files of this repository that tests and benchmarks read (the shipped broker configuration, the
/// sample devices.json): found from this source file's place, as they run where it was built.
public enum RepositoryFiles {
    /// The repository's top folder.
    public static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3) // Sources/SwitchboardTesting/RepositoryFiles.swift
        return parts.joined(separator: "/")
    }()

    /// The sample devices.json.
    public static let samplePath = path("devices.json")

    /// A file of the repository by its path from the top folder ("deploy/mosquitto/bridge.conf").
    public static func path(_ relative: String) -> String { root + "/" + relative }
}
