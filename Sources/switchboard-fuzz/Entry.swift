import Foundation

#if SWITCHBOARD_FUZZING
/// libFuzzer's driver (linked by `-sanitize=fuzzer`), run from this executable's own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// libFuzzer's per-input entry point: hands every input the fuzzer makes to ``FuzzTargets``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}

/// Under libFuzzer: this executable's `main` runs the fuzzer's driver.
@main
struct Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) })
    }
}
#else
/// Without the fuzzer: replays the inputs in the files or folders given (a corpus, a crash).
@main
struct ReplayInputs {
    static func main() throws {
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ReplayError("no such file or folder: \(path)")
            }
            let files = isFolder.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { throw ReplayError("cannot read \(file)") }
                FuzzTargets.run(Array(data))
                replayed += 1
            }
        }
        print("replayed \(replayed) inputs")
    }
}

struct ReplayError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
