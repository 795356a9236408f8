import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Descriptors watched by an event loop (the process's, ``EventLoop/shared``, or one of a test's
/// own): handlers only while watched and not paused, the cancellation once and after the last
/// handler, watches, jobs and a source served by one thread, and readers that come and go from
/// many threads at once.
///
/// The last two tests are what stopped the daemon when its readers were Dispatch sources: run as
/// this suite with `FileDescriptorLines` on a `DispatchSource` per descriptor (and without the
/// loop's own tests), the test process stopped with `SIGSEGV` in libdispatch's
/// `_dispatch_event_loop_drain` in 4 of 157 runs on amd64 (on the loop's watches: 0 of 130). The
/// daemon did so under qemu-user on arm64 in 3 of 160 runs of the README's run command (on the
/// loop's watches: 0 of 265). So a green run says little; a red one, a `SIGSEGV` in that
/// function, is the bug.
@Suite(.timeLimit(.minutes(3)))
struct EventLoopWatchTests {
    /// What one watch saw, in order: "readable" (after reading the pipe empty) and "cancelled".
    final class Record: Sendable {
        let events = Locked<[String]>([])
        func add(_ event: String) { events.withLock { $0.append(event) } }
        var readableCount: Int { events.withLock { $0.filter { $0 == "readable" }.count } }
    }

    static func drain(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 256)
        while let count = try? SystemCall.readIfReady(descriptor, into: &buffer), count > 0 {}
    }

    @Test func aPausedWatchIsNotServedAndACancelledOneNeverAgain() async throws {
        let ends = try SystemCall.pipe()
        defer { close(ends.write) }
        try SystemCall.setNonBlocking(ends.read)
        let loop = try #require(EventLoop.shared)
        let record = Record()
        let watch = loop.watch(ends.read, paused: true, readable: { _ in
            Self.drain(ends.read)
            record.add("readable")
        }, cancelled: {
            record.add("cancelled")
            close(ends.read)
        })
        try SystemCall.writeAll(Array("one\n".utf8), to: ends.write)
        try await Task.sleep(for: .milliseconds(300))
        #expect(record.readableCount == 0, "a watch made paused is not served while it is")

        watch.resume()
        let probe = Probe(0)
        #expect(await probe.wait(timeout: .seconds(10)) { _ in record.readableCount == 1 } != nil, "resumed, it is served")

        watch.pause()
        try SystemCall.writeAll(Array("two\n".utf8), to: ends.write)
        try await Task.sleep(for: .milliseconds(300))
        #expect(record.readableCount == 1, "paused again, the new line waits")

        watch.resume()
        #expect(await probe.wait(timeout: .seconds(10)) { _ in record.readableCount == 2 } != nil)

        watch.cancel()
        watch.cancel()
        #expect(await probe.wait(timeout: .seconds(10)) { _ in record.events.withLock { $0.last } == "cancelled" } != nil)
        // The descriptor number is closed now and may be reused by anyone: nothing of this
        // watch's runs again, whatever becomes readable.
        try await Task.sleep(for: .milliseconds(300))
        #expect(record.events.withLock { $0 } == ["readable", "readable", "cancelled"])
    }

    /// A stopped loop cancels what it watches, on its thread and after its last handler; a
    /// watch made after the stop is cancelled at once and never served.
    @Test func aStoppedLoopCancelsItsWatchesOnItsThreadAndALateOneAtOnce() async throws {
        let loop = try EventLoop(name: "test-watch-stop")
        let ends = try SystemCall.pipe()
        defer { close(ends.write) }
        try SystemCall.setNonBlocking(ends.read)
        let record = Record()
        let onLoop = Locked<[Bool]>([])
        _ = loop.watch(ends.read, readable: { _ in
            Self.drain(ends.read)
            record.add("readable")
        }, cancelled: {
            onLoop.withLock { $0.append(loop.inEventLoop) }
            record.add("cancelled")
            close(ends.read)
        })
        try SystemCall.writeAll(Array("one\n".utf8), to: ends.write)
        let probe = Probe(0)
        #expect(await probe.wait(timeout: .seconds(10)) { _ in record.readableCount == 1 } != nil)
        loop.stop()
        #expect(await probe.wait(timeout: .seconds(10)) { _ in record.events.withLock { $0.last } == "cancelled" } != nil,
                "the stop cancelled the watch")

        let late = try SystemCall.pipe()
        defer { close(late.write) }
        // Readable from the start: a watch that were polled would be served at once.
        try SystemCall.writeAll(Array("two\n".utf8), to: late.write)
        let lateRecord = Record()
        _ = loop.watch(late.read, readable: { _ in lateRecord.add("readable") }, cancelled: {
            onLoop.withLock { $0.append(loop.inEventLoop) }
            lateRecord.add("cancelled")
            close(late.read)
        })
        #expect(await probe.wait(timeout: .seconds(10)) { _ in lateRecord.events.withLock { $0 } == ["cancelled"] } != nil)
        try await Task.sleep(for: .milliseconds(200))
        #expect(lateRecord.events.withLock { $0 } == ["cancelled"], "a watch on a stopped loop is never served")
        #expect(record.events.withLock { $0 } == ["readable", "cancelled"])
        #expect(onLoop.withLock { $0 } == [true, true], "both cancellations ran on a thread of the loop's")
    }

    /// One thread serves a loop's jobs, its source and its watches: a job, the source's service
    /// and a watch's handler each see the same thread, and each sees the loop as its own.
    @Test func jobsTheSourceAndWatchesAreServedByOneThread() async throws {
        final class PipeSource: EventLoopSource, @unchecked Sendable {
            // Invariant: `descriptor` is set once; `served` is locked.
            let descriptor: Int32
            let served = Locked<[(thread: pthread_t, onLoop: Bool)]>([])
            weak var loop: EventLoop?
            init(_ descriptor: Int32) { self.descriptor = descriptor }
            func nextWait() -> EventLoop.Wait? { EventLoop.Wait(socket: descriptor) }
            func serviceReady(_ ready: EventLoop.Ready) {
                guard ready.readable else { return }
                EventLoopWatchTests.drain(descriptor)
                let onLoop = loop?.inEventLoop ?? false
                served.withLock { $0.append((pthread_self(), onLoop)) }
            }
        }
        let loop = try EventLoop(name: "test-one-thread")
        defer { loop.stop() }
        let sourceEnds = try SystemCall.pipe(), watchEnds = try SystemCall.pipe()
        defer { for end in [sourceEnds.read, sourceEnds.write, watchEnds.write] { close(end) } }
        try SystemCall.setNonBlocking(sourceEnds.read)
        try SystemCall.setNonBlocking(watchEnds.read)
        let source = PipeSource(sourceEnds.read)
        source.loop = loop
        loop.serve(source)
        let handled = Locked<[(thread: pthread_t, onLoop: Bool)]>([])
        let watch = loop.watch(watchEnds.read, readable: { _ in
            Self.drain(watchEnds.read)
            handled.withLock { $0.append((pthread_self(), loop.inEventLoop)) }
        }, cancelled: { close(watchEnds.read) })
        defer { watch.cancel() }
        let jobs = Locked<[(thread: pthread_t, onLoop: Bool)]>([])
        let probe = Probe(0)
        for round in 0..<20 {
            try SystemCall.writeAll([1], to: sourceEnds.write)
            try SystemCall.writeAll([2], to: watchEnds.write)
            loop.execute { jobs.withLock { $0.append((pthread_self(), loop.inEventLoop)) } }
            #expect(await probe.wait(timeout: .seconds(10)) { _ in
                source.served.withLock { $0.count } > round && handled.withLock { $0.count } > round && jobs.withLock { $0.count } > round
            } != nil, "round \(round): the source, the watch and the job were all served")
        }
        let all = source.served.withLock { $0 } + handled.withLock { $0 } + jobs.withLock { $0 }
        #expect(all.allSatisfy { $0.onLoop })
        #expect(Set(all.map(\.thread)).count == 1, "one thread served them all")
    }

    /// Handlers read into the loop's one buffer: two watches' handlers, over many events, see
    /// the same storage (a buffer made for each event was 64 KiB of allocation per read).
    @Test func handlersShareTheLoopsReadBuffer() async throws {
        let loop = try EventLoop(name: "test-read-buffer")
        defer { loop.stop() }
        let addresses = Locked<Set<UInt>>([])
        var pipes: [(read: Int32, write: Int32)] = []
        var watches: [DescriptorWatch] = []
        let reads = Locked(0)
        for _ in 0..<2 {
            let ends = try SystemCall.pipe()
            try SystemCall.setNonBlocking(ends.read)
            pipes.append(ends)
            watches.append(loop.watch(ends.read, readable: { watch in
                watch.loop.withReadBuffer { buffer in
                    _ = try? SystemCall.readIfReady(ends.read, into: &buffer)
                    addresses.withLock { _ = $0.insert(UInt(bitPattern: buffer.withUnsafeBufferPointer { $0.baseAddress })) }
                    #expect(buffer.count == 65536)
                }
                reads.withLock { $0 += 1 }
            }, cancelled: { close(ends.read) }))
        }
        let probe = Probe(0)
        for round in 1...20 {
            for ends in pipes { try SystemCall.writeAll([UInt8(round)], to: ends.write) }
            #expect(await probe.wait(timeout: .seconds(10)) { _ in reads.withLock { $0 } >= 2 * round } != nil)
        }
        for watch in watches { watch.cancel() }
        for ends in pipes { close(ends.write) }
        #expect(addresses.withLock { $0.count } == 1, "one buffer for every read of every handler")
    }

    /// Runs `round` `rounds` times over on each of `tasks` tasks at once; each task's count is
    /// how many of its rounds went wrong (`round` returned false).
    static func wrongRounds(tasks: Int, rounds: Int, _ round: @escaping @Sendable (_ task: Int, _ round: Int) async -> Bool) async -> [Int] {
        await withTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var wrong = 0
                    for index in 0..<rounds {
                        if await !round(task, index) { wrong += 1 }
                    }
                    return wrong
                }
            }
            var all: [Int] = []
            for await wrong in group { all.append(wrong) }
            return all
        }
    }

    @Test func readersThatComeAndGoOnManyThreadsAllGetTheirLines() async throws {
        // Each task: a pipe, a reader on it, lines written and the writer closed, the lines
        // read to the end, which cancels the watch; many of them at once, over and over.
        let results = await Self.wrongRounds(tasks: 8, rounds: 250) { task, round in
            guard let ends = try? SystemCall.pipe() else { return false }
            let lines = FileDescriptorLines(descriptor: ends.read)
            close(ends.read)
            let expected = (0..<3).map { "task \(task) round \(round) line \($0)" }
            try? SystemCall.writeAll(Array(expected.map { $0 + "\n" }.joined().utf8), to: ends.write)
            close(ends.write)
            var seen: [String] = []
            for await line in lines {
                if case .line(let text) = line { seen.append(String(text)) }
            }
            return seen == expected
        }
        #expect(results == Array(repeating: 0, count: 8), "every reader got exactly its lines, then the end")
    }

    @Test func aReaderThatStopsEarlyClosesItsDescriptor() async throws {
        let ends = try SystemCall.pipe()
        defer { close(ends.write) }
        let lines = FileDescriptorLines(descriptor: ends.read)
        close(ends.read)
        try SystemCall.writeAll(Array("one\n".utf8), to: ends.write)
        var iterator = lines.makeAsyncIterator()
        #expect(await iterator.next() == .line("one"))
        // The reader's own duplicate is the only reading end left: once its watch is cancelled
        // and has closed it, the writing end polls as in error (no reader).
        lines.stop()
        #expect(await iterator.next() == nil)
        let noReader = { () -> Bool in
            var descriptor = [pollfd(fd: ends.write, events: Int16(POLLOUT), revents: 0)]
            _ = try? SystemCall.poll(&descriptor, timeout: 0)
            return descriptor[0].revents & Int16(POLLERR) != 0
        }
        let probe = Probe(0)
        #expect(await probe.wait(timeout: .seconds(10)) { _ in noReader() } != nil,
                "the reader's descriptor was closed by its cancellation")
    }

    @Test func readersTornDownWhileTheirDescriptorsAreBusy() async throws {
        // Like an extension that dies: its output and error pipes end at the same moment, while a
        // third reader (a CLI client's) is stopped with lines still coming; on many tasks at once.
        let results = await Self.wrongRounds(tasks: 16, rounds: 150) { _, _ in
            guard let out = try? SystemCall.pipe(), let err = try? SystemCall.pipe(), let busy = try? SystemCall.pipe() else { return false }
            let outLines = FileDescriptorLines(descriptor: out.read), errLines = FileDescriptorLines(descriptor: err.read)
            let busyLines = FileDescriptorLines(descriptor: busy.read)
            close(out.read); close(err.read); close(busy.read)
            try? SystemCall.writeAll(Array("a\nb\n".utf8), to: out.write)
            try? SystemCall.writeAll(Array("c\n".utf8), to: err.write)
            try? SystemCall.writeAll(Array(String(repeating: "x\n", count: 50).utf8), to: busy.write)
            close(out.write); close(err.write)
            busyLines.stop()
            close(busy.write)
            async let o = outLines.reduce(0) { count, _ in count + 1 }
            async let e = errLines.reduce(0) { count, _ in count + 1 }
            let (outCount, errCount) = await (o, e)
            return outCount == 2 && errCount == 1
        }
        #expect(results == Array(repeating: 0, count: 16))
    }

    @Test func childrenThatDieAtOnceWhileOtherReadersComeAndGo() async throws {
        // An extension that cannot start: spawned with its output and error on pipes, it writes a
        // line to each and exits; many at once, with readers coming and going beside them.
        // Fewer under a sanitizer: there a fork is slow and the whole test process stalls while
        // it runs (likely the copy of the shadow memory's page tables); 240 of them held every
        // other test up for a minute under ThreadSanitizer, and a button test's presses came out
        // the wrong length.
        let results = await Self.wrongRounds(tasks: 6, rounds: Sanitizers.active ? 4 : 40) { _, _ in
            guard let input = try? SystemCall.pipe(), let out = try? SystemCall.pipe(), let err = try? SystemCall.pipe() else { return false }
            let outLines = FileDescriptorLines(descriptor: out.read), errLines = FileDescriptorLines(descriptor: err.read)
            // fork and waitpid block their thread: not one of the pool's, which every other test's
            // tasks need.
            let spawned = await onThread {
                ProcessSpawn.spawnIsolated("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], standardInput: input.read,
                                           standardOutput: out.write, standardError: err.write, environment: ["PATH=/usr/bin:/bin"], limits: [])
            }
            close(input.read); close(input.write); close(out.write); close(err.write)
            async let o = outLines.reduce(0) { count, _ in count + 1 }
            async let e = errLines.reduce(0) { count, _ in count + 1 }
            let (outCount, errCount) = await (o, e)
            close(out.read); close(err.read)
            guard case .success(let pid) = spawned else { return false }
            await onThread {
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
            return outCount == 1 && errCount == 1
        }
        #expect(results == Array(repeating: 0, count: 6))
    }
}
