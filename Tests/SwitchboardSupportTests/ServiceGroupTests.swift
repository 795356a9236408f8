import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The service group the daemon is assembled with: services start in order and shut down in the
/// reverse order, each once the one after it has returned; one that will not stop is cancelled
/// after its timeout; one that fails stops the others and its error comes out of the group.
@Suite(.timeLimit(.minutes(1)))
struct ServiceGroupTests {
    /// A service that says when it starts, when it is asked to stop, and when it returns; once
    /// asked, it returns only when its release rings.
    struct Recorder: Service {
        let name: String
        let journal: Probe<[String]>
        let release = Doorbell()

        func run() async throws {
            journal.update { $0.append("\(name) started") }
            do {
                try await gracefulShutdown()
            } catch {
                journal.update { $0.append("\(name) cancelled") }
                throw error
            }
            journal.update { $0.append("\(name) asked") }
            _ = await release.wait()
            journal.update { $0.append("\(name) returned") }
        }
    }

    struct Failure: Error, Equatable {}

    /// Runs `group` in a task; the task is cancelled when `body` is done, if still running.
    static func running(_ group: ServiceGroup, _ body: (Task<Void, any Error>) async -> Void) async {
        let task = Task { try await group.run() }
        await body(task)
        task.cancel()
        _ = await task.result
    }

    /// Lets `recorders` return once asked, asks `group` to shut down, and says whether it
    /// returned without an error.
    static func shutDown(_ group: ServiceGroup, _ task: Task<Void, any Error>, releasing recorders: Recorder...) async -> Bool {
        for recorder in recorders { recorder.release.ring() }
        group.triggerGracefulShutdown()
        return await task.result.isSuccess
    }

    @Test func shutsDownInReverseOrderEachOnceTheNextHasReturned() async throws {
        let journal = Probe<[String]>([])
        let services = ["storage", "network", "requests"].map { Recorder(name: $0, journal: journal) }
        let group = ServiceGroup(services.map { ServiceGroup.Entry($0.name, $0) })
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 3 } != nil)
            #expect(journal.value == ["storage started", "network started", "requests started"])
            group.triggerGracefulShutdown()
            #expect(await journal.wait { $0.contains("requests asked") } != nil)
            try? await Task.sleep(for: .milliseconds(50))
            #expect(!journal.value.contains("network asked"), "network is asked only once requests has returned")
            services[2].release.ring()
            #expect(await journal.wait { $0.contains("network asked") } != nil)
            services[1].release.ring()
            #expect(await journal.wait { $0.contains("storage asked") } != nil)
            services[0].release.ring()
            #expect(await task.result.isSuccess)
        }
        #expect(journal.value.dropFirst(3) == [
            "requests asked", "requests returned", "network asked", "network returned", "storage asked", "storage returned",
        ])
    }

    @Test func aServiceThatIgnoresTheShutdownIsCancelledAfterItsTimeout() async throws {
        let clock = ManualClock()
        let journal = Probe<[String]>([])
        let reports = Probe<[String]>([])
        let first = Recorder(name: "first", journal: journal)
        let stubborn = ServiceGroup.Entry("stubborn", stop: .graceful(timeout: .seconds(5))) {
            journal.update { $0.append("stubborn started") }
            // Hears only cancellation.
            _ = await Doorbell().wait()
            journal.update { $0.append("stubborn ended") }
        }
        let group = ServiceGroup([ServiceGroup.Entry("first", first), stubborn], clock: clock) { line in reports.update { $0.append(line) } }
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 2 } != nil)
            group.triggerGracefulShutdown()
            await clock.waitForSleepers(1)
            #expect(clock.pendingDeadlines == [ManualClock.Instant(offset: .seconds(5))])
            clock.advance(by: .milliseconds(4999))
            try? await Task.sleep(for: .milliseconds(50))
            #expect(!journal.value.contains("stubborn ended"))
            #expect(!journal.value.contains("first asked"), "first waits for stubborn")
            clock.advance(by: .milliseconds(1))
            #expect(await journal.wait { $0.contains("first asked") } != nil)
            #expect(journal.value.firstIndex(of: "stubborn ended") ?? .max < journal.value.firstIndex(of: "first asked") ?? .min)
            first.release.ring()
            #expect(await task.result.isSuccess, "a service cancelled after its timeout is not a failure of the group")
        }
        #expect(reports.value == ["stubborn did not stop within 5.0 seconds of the graceful shutdown; cancelled"])
    }

    @Test func aServiceThatThrowsStopsTheOthersInReverseOrderAndTheErrorComesOut() async throws {
        let journal = Probe<[String]>([])
        let first = Recorder(name: "first", journal: journal), last = Recorder(name: "last", journal: journal)
        let fail = Doorbell()
        let failing = ServiceGroup.Entry("failing") {
            _ = await fail.wait()
            throw Failure()
        }
        let group = ServiceGroup([ServiceGroup.Entry("first", first), failing, ServiceGroup.Entry("last", last)])
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 2 } != nil)
            first.release.ring()
            last.release.ring()
            fail.ring()
            let result = await task.result
            let error = try? #require(result.failure as? ServiceGroupError)
            #expect(error?.service == "failing")
            #expect(error?.code == .serviceFailed)
            #expect(error?.underlying as? Failure == Failure())
        }
        #expect(journal.value.dropFirst(2) == ["last asked", "last returned", "first asked", "first returned"])
    }

    @Test func aServiceThatReturnsEndsTheGroupWithoutAnError() async throws {
        let journal = Probe<[String]>([])
        let first = Recorder(name: "first", journal: journal)
        let end = Doorbell()
        let group = ServiceGroup([ServiceGroup.Entry("first", first), ServiceGroup.Entry("requests") { _ = await end.wait() }])
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 1 } != nil)
            first.release.ring()
            end.ring()
            #expect(await task.result.isSuccess)
        }
        #expect(journal.value == ["first started", "first asked", "first returned"])
    }

    @Test func aServiceWhoseReturnIsAllowedLeavesTheOthersRunning() async throws {
        let journal = Probe<[String]>([])
        let first = Recorder(name: "first", journal: journal)
        let end = Doorbell()
        let group = ServiceGroup([
            ServiceGroup.Entry("first", first),
            ServiceGroup.Entry("subscription", returnStopsGroup: false) {
                _ = await end.wait()
                journal.update { $0.append("subscription ended") }
            },
        ])
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 1 } != nil)
            end.ring()
            #expect(await journal.wait { $0.contains("subscription ended") } != nil)
            try? await Task.sleep(for: .milliseconds(50))
            #expect(!journal.value.contains("first asked"), "the others run on")
            #expect(await Self.shutDown(group, task, releasing: first))
        }
        #expect(journal.value == ["first started", "subscription ended", "first asked", "first returned"])
    }

    @Test func aServiceStoppedByCancellationIsCancelledAtItsTurn() async throws {
        let journal = Probe<[String]>([])
        let first = Recorder(name: "first", journal: journal)
        let loop = ServiceGroup.Entry("loop", stop: .cancellation) {
            _ = await Doorbell().wait()
            journal.update { $0.append("loop cancelled") }
        }
        let group = ServiceGroup([ServiceGroup.Entry("first", first), loop])
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 1 } != nil)
            #expect(await Self.shutDown(group, task, releasing: first))
        }
        #expect(journal.value == ["first started", "loop cancelled", "first asked", "first returned"])
    }

    @Test func cancellingTheGroupsTaskCancelsEveryService() async throws {
        let journal = Probe<[String]>([])
        let services = ["a", "b"].map { Recorder(name: $0, journal: journal) }
        let group = ServiceGroup(services.map { ServiceGroup.Entry($0.name, $0) })
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 2 } != nil)
            task.cancel()
            let result = await task.result
            #expect(result.failure is CancellationError)
        }
        #expect(Set(journal.value.dropFirst(2)) == ["a cancelled", "b cancelled"])
    }

    @Test func aGroupInAGroupShutsDownWithIt() async throws {
        let journal = Probe<[String]>([])
        let outer = Recorder(name: "outer", journal: journal), inner = Recorder(name: "inner", journal: journal)
        let group = ServiceGroup([ServiceGroup.Entry("outer", outer), ServiceGroup.Entry("node", ServiceGroup([ServiceGroup.Entry("inner", inner)]))])
        await Self.running(group) { task in
            #expect(await journal.wait { $0.count == 2 } != nil)
            #expect(await Self.shutDown(group, task, releasing: outer, inner))
        }
        #expect(journal.value.dropFirst(2) == ["inner asked", "inner returned", "outer asked", "outer returned"])
    }

    @Test func outsideAGroupAServiceStopsOnlyWhenCancelled() async {
        let journal = Probe<[String]>([])
        let alone = Recorder(name: "alone", journal: journal)
        let task = Task { try await alone.run() }
        #expect(await journal.wait { $0.count == 1 } != nil)
        #expect(!isShuttingDownGracefully)
        task.cancel()
        #expect(await task.result.failure is CancellationError)
        #expect(journal.value == ["alone started", "alone cancelled"])
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
