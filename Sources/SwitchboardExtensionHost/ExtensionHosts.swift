import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// The daemon's control extensions, by id, across reloads: a reload keeps running each whose
/// settings did not change, stops those removed or changed, and starts the new ones.
package final class ExtensionHosts: Service {
    private let hosts = Locked<[String: ExtensionHost]>([:])
    private let started: AsyncStream<ExtensionHost>
    private let start: AsyncStream<ExtensionHost>.Continuation
    private let makeHost: @Sendable (ExtensionSettings) -> ExtensionHost

    package init(makeHost: @escaping @Sendable (ExtensionSettings) -> ExtensionHost) {
        self.makeHost = makeHost
        (started, start) = AsyncStream<ExtensionHost>.makeStream()
    }

    /// Runs every extension started, until the group's graceful shutdown (or ``stopAll()``)
    /// has stopped them all.
    package func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await host in started { group.addTask { await host.run() } }
            }
        } onGracefulShutdown: {
            self.stopAll()
        }
    }

    /// Makes the running extensions those of `settings`, and waits until each new one has listed
    /// its controls (or failed to).
    /// - Returns: whether every extension has listed its controls.
    @discardableResult
    package func update(to settings: [ExtensionSettings]) async -> Bool {
        let (new, stopped) = hosts.withLock { hosts -> ([ExtensionHost], [ExtensionHost]) in
            var new: [ExtensionHost] = [], stopped: [ExtensionHost] = []
            let wanted = Dictionary(settings.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for (id, host) in hosts where wanted[id] != host.settings {
                stopped.append(host)
                hosts[id] = nil
            }
            for item in settings where hosts[item.id] == nil {
                let host = makeHost(item)
                hosts[item.id] = host
                new.append(host)
            }
            return (new, stopped)
        }
        stopped.forEach { $0.shutDown() }
        new.forEach { start.yield($0) }
        for host in new { await host.firstListing() }
        return all.allSatisfy { !$0.kinds.isEmpty }
    }

    /// Every extension, by id.
    package var all: [ExtensionHost] { hosts.withLock { hosts in hosts.keys.sorted().compactMap { hosts[$0] } } }

    /// The controls of every extension that has listed them, but for kinds already taken (by
    /// devices.json, compiled-in Swift controls, or an extension before it in id order): a kind
    /// is one control, so those are left out, and ``problems`` says so.
    package func definitions(excluding taken: [String]) -> [ControlDefinition] {
        var seen = Set(taken)
        var result: [ControlDefinition] = []
        var clashes: [String] = []
        for host in all {
            for definition in host.definitions() {
                if seen.insert(definition.kind).inserted {
                    result.append(definition)
                } else {
                    clashes.append("extension \(host.settings.id): its control kind \"\(definition.kind)\" is taken by another control and is left out; give it a kind of its own")
                }
            }
        }
        self.clashes.withLock { $0 = clashes }
        return result
    }

    private let clashes = Locked<[String]>([])

    /// How each extension is, for `switchboard status`: those not running, and kinds left out.
    package var problems: [String] {
        all.compactMap { host in host.condition == "running" ? nil : "extension \(host.settings.id): \(host.condition)" }
            + clashes.withLock { $0 }
    }

    /// How each running extension is kept apart, for `switchboard status`.
    package var isolation: [String] {
        all.compactMap { host in host.isolation.map { "\(host.settings.id): \($0)" } }
    }

    /// Stops every extension and ends ``run()``.
    func stopAll() {
        start.finish()
        hosts.withLock { hosts in
            defer { hosts = [:] }
            return Array(hosts.values)
        }.forEach { $0.shutDown() }
    }
}
