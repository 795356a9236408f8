import SwitchboardSupport

/// One run of a control extension, however it is hosted (``ExtensionHosting``): lines to it and
/// from it, how to stop it, and how it ended. ``ExtensionHost`` serves any of them alike.
protocol ExtensionRun: AnyObject, Sendable {
    /// Lines to the extension (the line protocol).
    var input: QueuedLineWriter { get }
    /// Lines from it (the line protocol).
    var output: FileDescriptorLines { get }
    /// Its log lines (empty when they go elsewhere, such as the journal).
    var errors: FileDescriptorLines { get }
    /// How the log names this run: "pid 1234", "systemd unit switchboard-extension@….service".
    var identity: String { get }
    /// How it is kept apart from the daemon and the other extensions, for `switchboard status`.
    var isolation: String { get }
    /// Ends it: SIGTERM, then SIGKILL if it is still there after `grace`.
    func terminate(grace: Duration)
    /// Ends it at once (a hung or flooding extension).
    func killNow()
    /// Waits for it to end; says how ("exited with status 1").
    func exit() async -> String
}

extension ExtensionRun {
    /// Ends it: SIGTERM, then SIGKILL if it is still there after 2 s.
    func terminate() { terminate(grace: .seconds(2)) }
}
