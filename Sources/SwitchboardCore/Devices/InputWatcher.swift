import SwitchboardGPIO
import SwitchboardSupport

/// Watches a hub's input devices: every debounced change of an input's line yields the input's
/// id on ``DeviceHub/valueChanges``, so every control bound to it reloads. One of the node's
/// services (``NodeRuntime/runServices()``); it waits on the lines' edges and never polls.
public struct InputWatcher: Sendable {
    /// Each input device's id and its debounced edges.
    let inputs: [(id: String, edges: DebouncedInput)]
    let changes: Broadcast<String>

    /// Runs once, until the hub releases the lines (``DeviceHub/shutdown(handingOverTo:)``) or
    /// the task is cancelled. Edges that come before it runs wait for it.
    public func run() async {
        let changes = self.changes
        await withDiscardingTaskGroup { group in
            for (id, edges) in inputs {
                group.addTask { await edges.run { _ in changes.yield(id) } }
            }
        }
    }
}

/// Stops when cancelled: a group stops it with ``ServiceGroup/Entry/Stop/cancellation``.
extension InputWatcher: Service {}
