/// A child process of the daemon is one way to run an extension.
extension ExtensionProcess: ExtensionRun {
    var identity: String { "pid \(pid)" }
    var isolation: String { "child process \(pid) of switchboardd" }
}
