import Foundation

/// A new folder under the temporary directory for a test's files, removed with everything in it
/// when the value goes. Only the value keeps the folder: hold it for as long as the folder is
/// used (a test that reads only ``path`` keeps it with `withExtendedLifetime`).
public final class TemporaryFolder: Sendable {
    /// The folder's path.
    public let path: String

    /// Makes the folder, named `prefix` and a random part.
    public init(prefix: String = "switchboard-state-") throws {
        path = NSTemporaryDirectory() + prefix + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
