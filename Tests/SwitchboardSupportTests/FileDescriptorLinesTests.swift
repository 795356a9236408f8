import Foundation
import SwitchboardSupport
import SwitchboardTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading lines from a pipe: whether the reader has caught up with the writer, which is how the
/// daemon tells an extension that floods it from one it merely reads slowly.
// Minutes: under emulation, tens of thousands of lines take a while.
@Suite(.timeLimit(.minutes(3)))
struct FileDescriptorLinesTests {
    /// Writes all of `bytes`, blocking while the pipe is full.
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        try? SystemCall.writeAll(bytes, to: descriptor)
    }

    @Test func aWriterAheadOfItsReaderNeverLetsTheReaderFindThePipeEmpty() async throws {
        let ends = try SystemCall.pipe()
        let lines = FileDescriptorLines(descriptor: ends.read)
        close(ends.read)
        var iterator = lines.makeAsyncIterator()

        Self.writeAll(ends.write, Array("one\ntwo\n".utf8))
        #expect(await iterator.next() == .line("one"))
        #expect(await iterator.next() == .line("two"))
        let caughtUp = Probe(0)
        #expect(await caughtUp.wait(timeout: .seconds(10)) { _ in lines.timesEmptied > 0 } != nil,
                "the reader read all there was: it found the pipe empty")

        // A flood: chunks of 6000 lines, each a write of its own, faster than they are handled.
        let chunk = Array(String(repeating: "noise-line\n", count: 6000).utf8)
        let writer = ends.write
        let written = Probe(false)
        // A thread of its own: the writer blocks while the pipe is full, and a blocked dispatch
        // worker is one fewer for every other test's work on a two-core machine, where the run
        // stalled when the writer held one.
        Thread {
            for _ in 0..<3 { Self.writeAll(writer, chunk) }
            written.update { $0 = true }
            close(writer)
        }.start()
        #expect(await iterator.next() == .line("noise-line"))
        let before = lines.timesEmptied
        // More than a pipe holds (64 KiB, under 6000 lines): the reader reads again meanwhile.
        // One expectation for all the lines: under emulation, 7000 of them take too long.
        var unexpected = 0
        for index in 1..<7000 {
            if await iterator.next() != .line("noise-line") { unexpected += 1 }
            if index % 500 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(unexpected == 0)
        #expect(lines.timesEmptied == before, "while the writer kept ahead, reading never found the pipe empty")
        // The rest of the lines, counted rather than read to the end: the end of the pipe comes
        // only when every copy of its writing end is closed, and a child another test forks in a
        // parallel run holds a copy until it execs.
        var rest = 0
        while rest < 18000 - 7000, await iterator.next() == .line("noise-line") { rest += 1 }
        #expect(rest == 18000 - 7000)
        #expect(await written.wait(timeout: .seconds(10)) { $0 } != nil)
    }
}
