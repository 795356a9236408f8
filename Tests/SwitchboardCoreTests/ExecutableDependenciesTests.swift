import Foundation
import SwitchboardTesting
import Testing

/// The executables declare in Package.swift exactly the package's targets their sources import:
/// none reached only through another target, none declared and unused.
@Suite struct ExecutableDependenciesTests {
    static let manifest = (try? String(contentsOfFile: RepositoryFiles.path("Package.swift"), encoding: .utf8)) ?? ""

    /// The package's targets that sources can import (Swift, C and system library targets).
    static func packageTargets() throws -> Set<String> {
        let declaration = try Regex(#"\.(?:target|executableTarget|systemLibrary)\(\s*name: "([^"]+)""#)
        return Set(manifest.matches(of: declaration).compactMap { $0.output[1].substring.map { String($0) } })
    }

    /// The dependencies Package.swift gives `target`, written on its one line.
    static func declaredDependencies(of target: String) throws -> Set<String> {
        let line = try #require(manifest.split(separator: "\n").first { $0.contains(#".executableTarget(name: "\#(target)","#) })
        let dependencies = try Regex(#"dependencies: \[([^\]]*)\]"#)
        let match = try #require(line.firstMatch(of: dependencies), "\(target)'s line in Package.swift has no dependencies: [...]")
        let list = match.output[1].substring ?? ""
        return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) })
    }

    /// The package's targets that the sources of `target` import.
    static func importedTargets(of target: String) throws -> Set<String> {
        let folder = RepositoryFiles.path("Sources/" + target)
        let statement = try Regex(#"^\s*(?:@\w+\s+)*(?:public\s+|package\s+|internal\s+)?import\s+(\w+)"#)
        let targets = try packageTargets()
        var imported: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            for line in try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n") {
                if let name = try statement.firstMatch(in: String(line))?.output[1].substring, targets.contains(String(name)) {
                    imported.insert(String(name))
                }
            }
        }
        return imported
    }

    @Test(arguments: ["switchboard", "switchboardd", "switchboard-extension-launcher"])
    func dependenciesAreWhatTheSourcesImport(_ target: String) throws {
        try #require(try Self.packageTargets().isSuperset(of: ["SwitchboardCore", "SwitchboardSupport", "CMosquitto"]))
        let imported = try Self.importedTargets(of: target)
        try #require(!imported.isEmpty, "Sources/\(target) imports none of the package's targets")
        #expect(try Self.declaredDependencies(of: target) == imported, "Package.swift's dependencies of \(target) should be what Sources/\(target) imports")
    }
}
