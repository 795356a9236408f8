import Foundation
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The libmosquitto client against a real broker on a free loopback port.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct MQTTConnectionTests {
    func client(_ broker: MosquittoBroker, id: String, will: MQTTMessage? = nil) throws -> MQTTConnection {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: broker.port, clientID: id, keepalive: 10)
        configuration.will = will
        configuration.reconnect = Backoff(initial: .milliseconds(100), maximum: .milliseconds(400), jitter: 0.25)
        return try MQTTConnection(configuration)
    }

    @Test func publishesAndReceivesWithWildcardsAndRetain() async throws {
        let broker = try await MosquittoBroker()
        let a = try client(broker, id: "a"), b = try client(broker, id: "b")
        var events = a.events.makeAsyncIterator()
        a.subscribe("home/porch/state", qos: 1)
        a.start()
        #expect(await events.next() == .connected)
        a.publish(MQTTMessage(topic: "home/porch/state", text: "ON", qos: 1, retain: true))
        // Once its own message came back through the broker, the broker holds it as retained.
        var own = a.messages.makeAsyncIterator()
        #expect(await own.next()?.text == "ON")

        var bEvents = b.events.makeAsyncIterator()
        b.subscribe("home/+/state", qos: 1)
        b.start()
        #expect(await bEvents.next() == .connected)
        var messages = b.messages.makeAsyncIterator()
        let retained = try #require(await messages.next())
        #expect(retained == MQTTMessage(topic: "home/porch/state", text: "ON", qos: 1, retain: true))
        a.publish(MQTTMessage(topic: "home/fan/state", text: "OFF", qos: 0))
        let live = try #require(await messages.next())
        #expect(live == MQTTMessage(topic: "home/fan/state", text: "OFF", qos: 0, retain: false))
        a.stop()
        b.stop()
    }

    /// The reconnect delay is waited on the configured clock: with the broker back, nothing
    /// connects until the clock has moved the whole delay.
    @Test func reconnectsWhenItsClockHasMovedTheBackoffDelay() async throws {
        let broker = try await MosquittoBroker()
        let clock = ManualClock()
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: broker.port, clientID: "timed", keepalive: 10)
        configuration.reconnect = Backoff(initial: .seconds(10), maximum: .seconds(10), jitter: 0)
        configuration.clock = AnyClock(clock)
        let connection = try MQTTConnection(configuration)
        var events = connection.events.makeAsyncIterator()
        connection.start()
        #expect(await events.next() == .connected)
        broker.kill()
        guard case .disconnected(_, let retryIn)? = await events.next() else { Issue.record("expected a disconnect"); return }
        #expect(retryIn == .seconds(10))
        try await broker.start()
        guard await yielding(until: { clock.sleeperCount > 0 }) else { Issue.record("no reconnect timer"); connection.stop(); return }
        #expect(clock.pendingDeadlines == [clock.now.advanced(by: .seconds(10))])
        clock.advance(by: .seconds(9))
        #expect(!connection.connected)
        clock.advance(by: .seconds(1))
        #expect(await events.next() == .connected)
        connection.stop()
    }

    /// A message handler takes messages on the connection's thread in the order they came, and
    /// passes on to `messages` those it declines; the 500th is handed to it through as few frames
    /// as the first (a handler kept as `Locked<MessageHandler?>` gained a thunk per message).
    @Test func aMessageHandlerTakesMessagesInOrderAndPassesOnWhatItDeclines() async throws {
        let broker = try await MosquittoBroker()
        let a = try client(broker, id: "a")
        let taken = Locked<[(text: String, depth: Int)]>([])
        a.setMessageHandler { message in
            guard message.topic == "load/taken" else { return false }
            taken.withLock { $0.append((message.text ?? "", Thread.callStackReturnAddresses.count)) }
            return true
        }
        var events = a.events.makeAsyncIterator()
        a.subscribe("load/#", qos: 1)
        a.start()
        #expect(await events.next() == .connected)
        for index in 0..<500 { a.publish(MQTTMessage(topic: "load/taken", text: String(index), qos: 1)) }
        a.publish(MQTTMessage(topic: "load/passed", text: "last", qos: 1))
        var messages = a.messages.makeAsyncIterator()
        #expect(await messages.next() == MQTTMessage(topic: "load/passed", text: "last", qos: 1, retain: false))
        let received = taken.withLock { $0 }
        #expect(received.map(\.text) == (0..<500).map(String.init))
        #expect(Set(received.map(\.depth)).count == 1)
        a.stop()
    }

    /// A reload hands the connection to the next configuration's bridge (`renewStreams`): what
    /// arrives before that bridge sets its handler is held for it, and the handler takes those
    /// first, in order, then the newer ones, while another client keeps publishing throughout.
    /// (Before, they went to `messages`, read by a task of the bridge's while the connection's
    /// thread handed newer ones to the handler: an older state could be handled after a newer.)
    @Test func aHandOverHoldsWhatArrivesForTheNextHandlerAndItTakesThemFirst() async throws {
        let broker = try await MosquittoBroker()
        let a = try client(broker, id: "a"), b = try client(broker, id: "b")
        var events = a.events.makeAsyncIterator(), bEvents = b.events.makeAsyncIterator()
        a.subscribe("load/#", qos: 1)
        a.start()
        b.start()
        #expect(await events.next() == .connected)
        #expect(await bEvents.next() == .connected)
        a.renewStreams()
        let publishing = Task {
            for index in 0..<400 {
                b.publish(MQTTMessage(topic: "load/taken", text: String(index), qos: 1))
                if index == 199 { try? await Task.sleep(for: .milliseconds(300)) }
            }
            b.publish(MQTTMessage(topic: "load/passed", text: "last", qos: 1))
        }
        // Set while the first 200 have arrived (held) and the rest are coming.
        try await Task.sleep(for: .milliseconds(200))
        let taken = Locked<[String]>([])
        a.setMessageHandler { message in
            guard message.topic == "load/taken" else { return false }
            taken.withLock { $0.append(message.text ?? "") }
            return true
        }
        await publishing.value
        var messages = a.messages.makeAsyncIterator()
        #expect(await messages.next() == MQTTMessage(topic: "load/passed", text: "last", qos: 1, retain: false),
                "the one message the handler declines is the first on messages: none of those it takes went there")
        let received = taken.withLock { $0 }
        let expected = (0..<400).map { String($0) }
        #expect(received == expected)
        a.stop()
        b.stop()
    }

    /// A client "node" whose will is "offline (will)" on node/status, connected.
    func connectedNode(_ broker: MosquittoBroker) async throws -> MQTTConnection {
        let node = try client(broker, id: "node", will: MQTTMessage(topic: "node/status", text: "offline (will)", qos: 1, retain: true))
        var events = node.events.makeAsyncIterator()
        node.start()
        #expect(await events.next() == .connected)
        return node
    }

    /// A goodbye right after a burst is still said: libmosquitto keeps 20 QoS 1 messages in
    /// flight and queues the rest, and a DISCONNECT sent at once left the goodbye in that queue
    /// (the node's "offline" after a reconnect, when it republishes its state). The observer sees
    /// the goodbye itself, after every message of the burst.
    @Test func aGoodbyeAfterABurstIsSaidAfterTheBurst() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "node/#")
        let node = try await connectedNode(broker)
        for index in 0..<300 { node.publish(MQTTMessage(topic: "node/state", text: String(index), qos: 1)) }
        await node.stop(saying: MQTTMessage(topic: "node/status", text: "offline", qos: 1, retain: true), within: .seconds(10))
        let status = await observer.waitFor("node/status")
        #expect(status?.text == "offline", "the goodbye itself, not the will")
        #expect(observer.messages.filter { $0.topic == "node/state" }.map(\.text) == (0..<300).map(String.init))
    }

    /// A broker that does not acknowledge the goodbye within the limit (frozen) is left without a
    /// DISCONNECT: once it reads again it sees the connection closed and publishes the will.
    @Test func aGoodbyeTheBrokerDoesNotAcknowledgeLeavesTheWillToSayIt() async throws {
        let broker = try await MosquittoBroker()
        let observer = try await MQTTObserver(port: broker.port, filter: "node/status")
        let node = try await connectedNode(broker)
        broker.pause()
        let started = ContinuousClock.now
        await node.stop(saying: MQTTMessage(topic: "node/status", text: "offline", qos: 1, retain: true), within: .milliseconds(500))
        let waited = ContinuousClock.now - started
        broker.resume()
        #expect(waited >= .milliseconds(500) && waited < .seconds(5), "stop waited \(waited)")
        #expect(await observer.waitFor("node/status") { $0.text == "offline (will)" } != nil,
                "the broker published the will: the connection ended without a DISCONNECT (said: \(observer.messages.map(\.text)))")
    }

    /// Publishes from several threads at once while the connection's thread reads (and holds the
    /// connection): each publisher's messages all go out, in its order, none left in the outbox.
    @Test func publishesFromManyThreadsWhileReadingAllGoOutInOrder() async throws {
        let broker = try await MosquittoBroker()
        let a = try client(broker, id: "a")
        var events = a.events.makeAsyncIterator()
        a.subscribe("load/+", qos: 1)
        a.start()
        #expect(await events.next() == .connected)
        await withTaskGroup(of: Void.self) { group in
            for publisher in 0..<4 {
                group.addTask {
                    for index in 0..<200 { a.publish(MQTTMessage(topic: "load/\(publisher)", text: String(index), qos: 1)) }
                }
            }
        }
        var received: [String: [String]] = [:]
        var messages = a.messages.makeAsyncIterator()
        while received.values.map(\.count).reduce(0, +) < 800, let message = await messages.next() {
            received[message.topic, default: []].append(message.text ?? "")
        }
        for publisher in 0..<4 { #expect(received["load/\(publisher)"] == (0..<200).map(String.init)) }
        a.stop()
    }

    @Test func reconnectsAfterTheBrokerRestartsAndRenewsSubscriptions() async throws {
        let broker = try await MosquittoBroker()
        let listener = try client(broker, id: "listener")
        listener.subscribe("commands/#")
        var events = listener.events.makeAsyncIterator()
        listener.start()
        #expect(await events.next() == .connected)

        broker.kill()
        guard case .disconnected(_, let retryIn)? = await events.next() else { Issue.record("expected a disconnect"); return }
        #expect(retryIn >= .milliseconds(75) && retryIn <= .milliseconds(100))
        try await broker.start()
        while let event = await events.next(), event != .connected {}

        var messages = listener.messages.makeAsyncIterator()
        #expect(await broker.publish(["-t", "commands/porch", "-m", "TOGGLE"]).status == 0)
        #expect(try #require(await messages.next()).text == "TOGGLE")
        listener.stop()
    }

    @Test func unreachableBrokerIsRetriedWithGrowingDelays() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let lonely = try client(broker, id: "lonely")
        var events = lonely.events.makeAsyncIterator()
        lonely.start()
        var delays: [Duration] = []
        for _ in 0..<3 {
            if case .disconnected(_, let retryIn)? = await events.next() { delays.append(retryIn) }
        }
        #expect(delays.count == 3)
        #expect(delays[0] <= .milliseconds(100) && delays[1] > .milliseconds(100) && delays[2] > .milliseconds(200))
        try await broker.start()
        while let event = await events.next(), event != .connected {}
        #expect(lonely.connected)
        lonely.stop()
    }

    @Test func brokerPublishesTheWillWhenTheConnectionDies() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try client(broker, id: "watcher")
        watcher.subscribe("node/status")
        var watcherEvents = watcher.events.makeAsyncIterator()
        watcher.start()
        #expect(await watcherEvents.next() == .connected)

        // A separate process holds a connection with a will, then is killed.
        let sub = try ChildProcess("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "ignored", "--will-topic", "node/status", "--will-payload", "offline", "--will-retain", "-k", "5"])
        try await Task.sleep(for: .milliseconds(300))
        sub.stop(signal: SIGKILL)
        var messages = watcher.messages.makeAsyncIterator()
        let will = try #require(await messages.next())
        #expect(will.topic == "node/status" && will.text == "offline")
        watcher.stop()
    }
}

@Suite(.timeLimit(.minutes(1)))
struct MQTTProtocolVersionTests {
    @Test func connectsWithMQTT5() async throws {
        let broker = try await MosquittoBroker()
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: broker.port, clientID: "v5", keepalive: 10)
        configuration.protocolV5 = true
        let client = try MQTTConnection(configuration)
        client.subscribe("v5/#")
        var events = client.events.makeAsyncIterator()
        client.start()
        #expect(await events.next() == .connected)
        var messages = client.messages.makeAsyncIterator()
        client.publish(MQTTMessage(topic: "v5/echo", text: "hello", qos: 1))
        #expect(await messages.next()?.text == "hello")
        client.stop()
    }

    @Test func missingTLSFilesAreAConfigurationError() {
        var configuration = MQTTClientConfiguration(host: "127.0.0.1", port: 8883, clientID: "tls")
        configuration.tlsCAFile = "/nonexistent/ca.crt"
        #expect { _ = try MQTTConnection(configuration) } throws: { error in
            let error = error as? MQTTError
            return error?.call == "mosquitto_tls_set"
                && error?.description.hasSuffix("check that the CA, certificate and key files exist and are readable by the service user") == true
        }
    }
}
