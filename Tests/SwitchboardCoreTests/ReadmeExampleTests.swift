import Foundation
import SwitchboardTesting
import Testing

/// README's ControlKit example is real code: `Examples/PorchDaemon` (built as `porch-daemon`, run
/// by PorchDaemonTests) and the package `Tests/Packages/ReadmeExample` (built by deploy/test.sh)
/// hold its two Swift blocks word for word.
@Suite struct ReadmeExampleTests {
    /// The Swift blocks of README's ControlKit section, up to its first subsection, each with a
    /// final newline as a file has.
    static func readmeBlocks() throws -> [String] {
        let readme = try String(contentsOfFile: RepositoryFiles.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "\n## ControlKit\n"))
        let end = try #require(readme.range(of: "\n### ", range: start.upperBound..<readme.endIndex))
        var blocks: [String] = []
        var block: [Substring]?
        for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```swift" {
                block = []
            } else if line == "```", let finished = block {
                blocks.append(finished.joined(separator: "\n") + "\n")
                block = nil
            } else {
                block?.append(line)
            }
        }
        return blocks
    }

    @Test(arguments: ["Examples/PorchDaemon", "Tests/Packages/ReadmeExample/Sources/HomeDaemon"])
    func sourcesAreTheReadmesCode(_ folder: String) throws {
        let blocks = try Self.readmeBlocks()
        try #require(blocks.count == 2, "README's ControlKit section should show the bundle and the daemon's main")
        #expect(blocks[0].hasPrefix("import ControlKit") && blocks[0].contains("extension Relay {\n    static let porch = Relay(\"porch\")"))
        #expect(blocks[1].contains("exit(await SwitchboardDaemon.main(bundle: HomeBundle.self))"))
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.root + "/" + folder).sorted()
        #expect(files == ["HomeBundle.swift", "HomeDaemon.swift"])
        #expect(try String(contentsOfFile: "\(RepositoryFiles.root)/\(folder)/HomeBundle.swift", encoding: .utf8) == blocks[0])
        #expect(try String(contentsOfFile: "\(RepositoryFiles.root)/\(folder)/HomeDaemon.swift", encoding: .utf8) == blocks[1])
    }

    @Test func packageDependsOnSwitchboardByPath() throws {
        let manifest = try String(contentsOfFile: RepositoryFiles.root + "/Tests/Packages/ReadmeExample/Package.swift", encoding: .utf8)
        #expect(manifest.contains(#".package(name: "Switchboard", path: "../../..")"#))
        #expect(manifest.contains(#".product(name: "SwitchboardCore", package: "Switchboard")"#))
        let script = try String(contentsOfFile: RepositoryFiles.root + "/deploy/test.sh", encoding: .utf8)
        #expect(script.contains(#"swift build --package-path Tests/Packages/ReadmeExample --scratch-path "$PWD/.build/readme-example""#))
    }
}
