import Foundation

/// Files of this repository the tests read.
enum RepositoryFiles {
    /// The repository's top folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    /// The sample devices.json.
    static let samplePath = root + "/devices.json"
}
