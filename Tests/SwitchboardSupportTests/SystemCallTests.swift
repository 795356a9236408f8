import Foundation
import SwitchboardSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The system call seam on real files, pipes, sockets and processes: values or a thrown ``Errno``,
/// every descriptor close-on-exec, and `EINTR` retried where the call may be repeated.
@Suite(.timeLimit(.minutes(1)))
struct SystemCallTests {
    /// A fresh folder of its own under the temporary folder.
    static func folder() throws -> String {
        var template = Array("\(NSTemporaryDirectory())/systemcall-XXXXXX".utf8CString)
        let made = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        return String(cString: made)
    }

    static func isCloseOnExec(_ descriptor: CInt) -> Bool { fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0 }

    @Test func openedFilesAreCloseOnExecAndRoundTripTheirBytes() throws {
        let folder = try Self.folder()
        let path = folder + "/file"
        let file = try SystemCall.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        #expect(Self.isCloseOnExec(file))
        try SystemCall.writeAll(Array("hello\n".utf8), to: file)
        try SystemCall.fsync(file)
        SystemCall.close(file)

        let directory = try SystemCall.open(folder, O_RDONLY | O_DIRECTORY)
        defer { SystemCall.close(directory) }
        let again = try SystemCall.open("file", in: directory, O_RDONLY)
        defer { SystemCall.close(again) }
        #expect(Self.isCloseOnExec(again))
        #expect(try SystemCall.readToEnd(again) == Array("hello\n".utf8))
        #expect(try SystemCall.fstat(again).st_size == 6)
        try SystemCall.rename("file", in: directory, to: "renamed", in: directory)
        #expect(try SystemCall.stat(folder + "/renamed").st_mode & S_IFMT == S_IFREG)
        try SystemCall.unlink(folder + "/renamed")
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.stat(folder + "/renamed") }
    }

    @Test func failuresAreThrownAsTheirErrno() throws {
        let folder = try Self.folder()
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.open(folder + "/missing", O_RDONLY) }
        #expect(throws: Errno.fileExists) { try SystemCall.mkdir(folder, mode: 0o700) }
        #expect(throws: Errno.notDirectory) { try SystemCall.open("/etc/passwd/x", O_RDONLY) }
        #expect(symlink("/etc/passwd", folder + "/link") == 0)
        #expect(throws: Errno.tooManySymbolicLinkLevels) { try SystemCall.open(folder + "/link", O_RDONLY | O_NOFOLLOW) }
        #expect(try SystemCall.lstat(folder + "/link").st_mode & S_IFMT == S_IFLNK)
        #expect(throws: Errno.badFileDescriptor) { try SystemCall.fstat(-1) }
    }

    @Test func pipesAreCloseOnExecAndAClosedReaderIsABrokenPipe() throws {
        let ends = try SystemCall.pipe()
        #expect(Self.isCloseOnExec(ends.read) && Self.isCloseOnExec(ends.write))
        let copy = try SystemCall.duplicate(ends.read)
        #expect(Self.isCloseOnExec(copy))
        try SystemCall.setNonBlocking(ends.read)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try SystemCall.readIfReady(ends.read, into: &buffer) == nil, "nothing written yet")
        try SystemCall.writeAll([1, 2, 3], to: ends.write)
        #expect(try SystemCall.readIfReady(ends.read, into: &buffer) == 3)
        SystemCall.close(ends.read)
        SystemCall.close(copy)
        // SIGPIPE is ignored in the test process as in the daemon; the write says EPIPE.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        #expect(throws: Errno.brokenPipe) { try SystemCall.writeAll([1], to: ends.write) }
        SystemCall.close(ends.write)
    }

    @Test func socketsConnectAcceptAndSendWithoutSignals() throws {
        let folder = try Self.folder()
        let address = try #require(UnixSocketAddress(path: folder + "/socket"))
        let nobody = try SystemCall.unixStreamSocket()
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.connect(nobody, to: address) }
        SystemCall.close(nobody)

        let listener = try SystemCall.unixStreamSocket()
        defer { SystemCall.close(listener) }
        #expect(Self.isCloseOnExec(listener))
        try SystemCall.bind(listener, to: address)
        #expect(throws: Errno.addressInUse) {
            let second = try SystemCall.unixStreamSocket()
            defer { SystemCall.close(second) }
            try SystemCall.bind(second, to: address)
        }
        try SystemCall.listen(listener, backlog: 4)
        let client = try SystemCall.unixStreamSocket()
        try SystemCall.connect(client, to: address)
        let server = try SystemCall.accept(listener)
        #expect(Self.isCloseOnExec(server))
        try SystemCall.writeAll(Array("ping".utf8), to: client, isSocket: true)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try SystemCall.read(server, into: &buffer) == 4)
        try SystemCall.shutdown(server)
        SystemCall.close(server)
        // Without MSG_NOSIGNAL this send would kill the test process with SIGPIPE.
        #expect(throws: Errno.brokenPipe) {
            for _ in 0..<4 { try SystemCall.writeAll(Array("pong".utf8), to: client, isSocket: true) }
        }
        SystemCall.close(client)
    }

    @Test func aConnectionNamesItsPeerAndADatagramArrivesWhole() throws {
        let (one, other) = try SystemCall.unixStreamSocketPair()
        defer { SystemCall.close(one); SystemCall.close(other) }
        #expect(try SystemCall.peerUser(of: one) == SystemCall.effectiveUser)
        let pipe = try SystemCall.pipe()
        defer { SystemCall.close(pipe.read); SystemCall.close(pipe.write) }
        #expect(throws: Errno.notSocket) { try SystemCall.peerUser(of: pipe.read) }

        let folder = try Self.folder()
        let address = try #require(UnixSocketAddress(path: folder + "/datagrams"))
        let receiver = try SystemCall.unixDatagramSocket()
        defer { SystemCall.close(receiver) }
        try SystemCall.bind(receiver, to: address)
        let sender = try SystemCall.unixDatagramSocket()
        defer { SystemCall.close(sender) }
        #expect(try SystemCall.send(sender, Array("READY=1".utf8), to: address) == 7)
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(try SystemCall.read(receiver, into: &buffer) == 7)
    }

    @Test func usersAndLinksAreLookedUp() throws {
        #expect(SystemCall.account(named: "root")?.uid == 0)
        #expect(SystemCall.account(of: 0)?.name == "root")
        #expect(SystemCall.account(named: "no-such-user-switchboard") == nil)
        #expect(try SystemCall.readLink("/proc/self/exe").hasPrefix("/"))
        #expect(throws: Errno.invalidArgument) { try SystemCall.readLink("/") }
        #expect(try SystemCall.realPath("/proc/self/../self/exe").hasPrefix("/"))
        #expect(SystemCall.isExecutable("/bin/sh"))
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.checkReadable("/nonexistent/file") }
    }

    @Test func pollWaitsForItsTimeoutAndSeesWhatIsReady() throws {
        let ends = try SystemCall.pipe()
        defer { SystemCall.close(ends.read); SystemCall.close(ends.write) }
        var poller = [pollfd(fd: ends.read, events: Int16(POLLIN), revents: 0)]
        let started = ContinuousClock.now
        #expect(try SystemCall.poll(&poller, timeout: 50) == 0)
        #expect(started.duration(to: .now) >= .milliseconds(50))
        try SystemCall.writeAll([1], to: ends.write)
        #expect(try SystemCall.poll(&poller, timeout: -1) == 1)
    }

    @Test func aReapedChildIsNoProcessAnyMore() throws {
        let pid = try ProcessSpawn.spawn("/bin/sh", ["-c", "exit 3"]).get()
        try SystemCall.waitUntilExited(pid)
        try SystemCall.kill(pid, 0)  // ended but not reaped: its pid is still taken
        let status = try SystemCall.waitForExit(pid)
        #expect((status >> 8) & 0xff == 3)
        #expect(throws: Errno.noSuchProcess) { try SystemCall.kill(pid, 0) }
        #expect(throws: Errno.noChildProcess) { try SystemCall.waitForExit(pid) }
    }

    @Test func aLockHeldByAnotherDescriptorIsBusy() throws {
        let path = try Self.folder() + "/lock"
        let first = try SystemCall.open(path, O_RDWR | O_CREAT, mode: 0o600)
        let second = try SystemCall.open(path, O_RDWR)
        defer { SystemCall.close(first); SystemCall.close(second) }
        try SystemCall.flock(first, LOCK_EX | LOCK_NB)
        #expect(throws: Errno.wouldBlock) { try SystemCall.flock(second, LOCK_EX | LOCK_NB) }
    }

    @Test func theNamesInAFolderLeaveOutDots() throws {
        let folder = try Self.folder()
        try SystemCall.mkdir(folder + "/a", mode: 0o700)
        try SystemCall.mkfifo(folder + "/b", mode: 0o600)
        #expect(Set(try SystemCall.names(in: folder)) == ["a", "b"])
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.names(in: folder + "/missing") }
    }
}
