/// A child process of the daemon is one way to run an extension (its `isolation` says what its
/// sandbox holds: ``ExtensionSandbox``).
extension ExtensionProcess: ExtensionRun {
    var identity: String { "pid \(pid)" }
}
