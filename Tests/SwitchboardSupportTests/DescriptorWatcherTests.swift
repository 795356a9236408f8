import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The process's descriptor watcher: handlers only while watched and not paused, the cancellation
/// once and after the last handler, and readers that come and go from many threads at once.
///
/// The last two tests are what stopped the daemon when its readers were Dispatch sources: run as
/// this suite with `FileDescriptorLines` on a `DispatchSource` per descriptor (and without the
/// watcher's own tests), the test process stopped with `SIGSEGV` in libdispatch's
/// `_dispatch_event_loop_drain` in 4 of 157 runs on amd64 (on the watcher: 0 of 130). The daemon
/// did so under qemu-user on arm64 in 3 of 160 runs of the README's run command (on the watcher:
/// 0 of 265). So a green run says little; a red one, a `SIGSEGV` in that function, is the bug.
@Suite(.timeLimit(.minutes(3)))
struct DescriptorWatcherTests {
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
        let watcher = try #require(DescriptorWatcher.shared)
        let record = Record()
        let watch = watcher.watch(ends.read, paused: true, readable: { _ in
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
