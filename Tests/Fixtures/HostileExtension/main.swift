// A control extension that tries what an attacker's would, for the daemon's sandbox tests. It
// writes what it finds and does to the file given by `--report <path>` (appended, one line each):
//
//   start <pid>                  at each start, then what it was given:
//   descriptor <n> <target>      each open descriptor (it should have 0, 1 and 2 only)
//   environment <NAME=value>     each environment variable
//   orphan <pid>                 hostile.orphan: a child that keeps standard output open, and
//                                keeps asking to switch the porch, after the extension exits
//   bomb <count> <errno>         hostile.bomb: children forked before fork failed (or the cap)
//   sneak <device> <outcome>     hostile.sneak (the garage), hostile.sneakPorch: a device change of
//                                its own while the node is locked
import ControlKit
#if canImport(Glibc)
import Glibc
#endif

let reportPath: String = {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--report"), index + 1 < arguments.count else { return "/dev/null" }
    return arguments[index + 1]
}()

/// Appends a line to the report.
func report(_ line: String) {
    let descriptor = open(reportPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
    guard descriptor >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

/// Every descriptor open now (but the directory listing's own), with what it is.
func openDescriptors() -> [(Int32, String)] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var found: [(Int32, String)] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let number = Int32(name), number != own else { continue }
        var target = [CChar](repeating: 0, count: 512)
        let count = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
        found.append((number, count > 0 ? String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"))
    }
    return found.sorted { $0.0 < $1.0 }
}

report("start \(getpid())")
for (number, target) in openDescriptors() { report("descriptor \(number) \(target)") }
var variable = environ
while let entry = variable.pointee {
    report("environment \(String(cString: entry))")
    variable += 1
}

await HostileExtension.main()
