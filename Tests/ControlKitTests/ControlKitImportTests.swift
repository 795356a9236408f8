import ControlKit
import SwitchboardTesting
import Testing

/// What `import ControlKit` puts in a control author's scope, checked by compiling a file with
/// `swiftc -typecheck` against the modules of this build: the Controls API and Foundation, and
/// nothing of SwitchboardSupport (locks, process spawning, the daemon's clock), which is plumbing.
/// `swiftc` from the PATH the tests run with (`swift test` runs with the toolchain's on it); nil
/// where there is none, as for the arm64 bundle under qemu-user.
private let swiftc: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
    .split(separator: ":").map { $0 + "/swiftc" }.first { FileManager.default.isExecutableFile(atPath: $0) }

@Suite(.enabled(if: swiftc != nil, "needs swiftc on PATH"))
struct ControlKitImportTests {
    /// The built modules, the C modules' module maps and the module cache, for `swiftc`.
    static func compilerArguments() throws -> [String] {
        let directory = BuiltProducts.directory
        let files = FileManager.default
        // SwiftPM puts the modules in `Modules/` (Swift 6) or beside the products (before).
        let modules = files.fileExists(atPath: directory + "/Modules/ControlKit.swiftmodule") ? directory + "/Modules" : directory
        try #require(files.fileExists(atPath: modules + "/ControlKit.swiftmodule"), "no ControlKit.swiftmodule in \(modules): build the package first")
        var arguments = ["-typecheck", "-parse-as-library", "-swift-version", "6", "-I", modules, "-module-cache-path", directory + "/ModuleCache"]
        for folder in try files.contentsOfDirectory(atPath: directory).sorted() where folder.hasSuffix(".build") {
            let map = directory + "/" + folder + "/module.modulemap"
            if files.fileExists(atPath: map) { arguments += ["-Xcc", "-fmodule-map-file=" + map] }
        }
        return arguments
    }

    /// Type-checks `source` as a file of a control author's package; returns swiftc's status and
    /// its diagnostics.
    static func typecheck(_ source: String) async throws -> (status: Int32, output: String) {
        let folder = NSTemporaryDirectory() + "switchboard-import-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try source.write(toFile: folder + "/Control.swift", atomically: true, encoding: .utf8)
        let compiler = try #require(swiftc)
        let arguments = try compilerArguments() + [folder + "/Control.swift"]
        let run = await ChildProcess.run(compiler, arguments)
        return (run.status, run.stdout + run.stderr)
    }

    /// SwitchboardSupport's public top-level names, read from its sources.
    static func supportNames() throws -> [String] {
        let folder = RepositoryFiles.path("Sources/SwitchboardSupport")
        let declaration = try Regex(#"^(?:@\w+\s+)*public\s+(?:final\s+)?(?:struct|enum|class|actor|protocol|typealias|func|let|var)\s+(\w+)"#)
        var names: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            for line in try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n") {
                if let match = try declaration.firstMatch(in: String(line)), let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names.sorted()
    }

    /// README's bundle, with Foundation beside it, compiles with `import ControlKit` alone (and so
    /// the compiler finds this build's modules: the check below is not failing for another reason).
    @Test(.timeLimit(.minutes(2)))
    func controlKitGivesTheControlsAPIAndFoundation() async throws {
        let bundle = try String(contentsOfFile: RepositoryFiles.path("Tests/Packages/ReadmeExample/Sources/HomeDaemon/HomeBundle.swift"), encoding: .utf8)
        try #require(bundle.hasPrefix("import ControlKit "))
        let (status, output) = try await Self.typecheck(bundle + """

            func since(_ date: Date) -> String {
                let formatter = NumberFormatter()
                return formatter.string(from: NSNumber(value: Date.now.timeIntervalSince(date))) ?? ""
            }
            """)
        #expect(status == 0, "\(output)")
    }

    @Test(.timeLimit(.minutes(2)))
    func controlKitKeepsSwitchboardSupportOutOfScope() async throws {
        let names = try Self.supportNames()
        try #require(names.contains("Locked") && names.contains("ProcessSpawn") && names.contains("MemoryRelease"), "\(names)")
        let uses = names.map { "    _ = \($0).self" }.joined(separator: "\n")
        let (status, output) = try await Self.typecheck("import ControlKit\n\nfunc plumbing() {\n\(uses)\n}\n")
        #expect(status != 0, "import ControlKit brings SwitchboardSupport into scope")
        for name in names {
            #expect(output.contains("cannot find '\(name)' in scope"), "\(name) is in scope through import ControlKit")
        }
    }
}
