#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the package's built executables are: beside the running test bundle, or in
/// `SWITCHBOARD_BIN_DIR` when set (for test bundles run outside their build folder).
public enum BuiltProducts {
    /// The folder holding the built executables.
    public static var directory: String {
        if let override = ProcessInfo.processInfo.environment["SWITCHBOARD_BIN_DIR"], !override.isEmpty { return override }
        // The test runner is `<bin>/SwitchboardPackageTests.xctest` (or a path inside it).
        let components = CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false)
        let runner = components.firstIndex { $0.hasSuffix(".xctest") } ?? components.index(before: components.endIndex)
        return components[..<runner].joined(separator: "/")
    }

    /// The path of a built executable.
    public static func path(of product: String) -> String { directory + "/" + product }
}
