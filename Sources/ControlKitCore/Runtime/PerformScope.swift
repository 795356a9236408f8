import SwitchboardSupport

/// An action being performed, as the tasks it runs in see it: until it returns, a push its own
/// device changes make for its kind is covered by the reload that follows every action. A task
/// the action leaves running (which inherits the scope) pushes as usual once it has returned.
final class PerformScope: Sendable {
    let kind: String
    private let open = Locked(true)

    init(kind: String) { self.kind = kind }

    /// The action performed in the current task, if any.
    @TaskLocal static var current: PerformScope?

    /// Whether a push of `kind` now is covered by this action's reload.
    func covers(_ kind: String) -> Bool { kind == self.kind && open.withLock { $0 } }

    /// The action returned: its reload may be under way, and pushes count again.
    func close() { open.withLock { $0 = false } }
}
