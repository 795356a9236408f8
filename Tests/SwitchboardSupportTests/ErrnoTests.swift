import SwitchboardSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An error number as a value: its name, the C library's text, and equality by number.
@Suite(.timeLimit(.minutes(1)))
struct ErrnoTests {
    @Test func namesTheNumberAndGivesTheLibraryText() {
        #expect(Errno.noSuchFileOrDirectory.name == "ENOENT")
        #expect(Errno.noSuchFileOrDirectory.message == "No such file or directory")
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory (ENOENT)")
        #expect(Errno.noSpace.description == "No space left on device (ENOSPC)")
        #expect(Errno.tooManySymbolicLinkLevels.name == "ELOOP")
        #expect(Errno.interrupted.name == "EINTR")
        #expect("\(Errno(EDQUOT))" == "Disk quota exceeded (EDQUOT)")
    }

    @Test func aNumberWithoutANameIsShownAsANumber() {
        #expect(Errno(9999).name == "errno 9999")
        #expect(Errno(9999).description.hasSuffix("(errno 9999)"))
    }

    @Test func equalNumbersAreEqualErrors() {
        #expect(Errno(rawValue: ENOENT) == .noSuchFileOrDirectory)
        #expect(Errno(EAGAIN) == .wouldBlock, "EWOULDBLOCK is EAGAIN on Linux")
        #expect(Errno.resourceTemporarilyUnavailable == .wouldBlock)
        #expect(Errno.noSpace != .diskQuotaExceeded)
        #expect(Set([Errno(EPIPE), .brokenPipe, .connectionReset]).count == 2)
        #expect(Errno.permissionDenied.rawValue == EACCES)
    }

    @Test func currentIsWhatTheLastFailedCallSaid() {
        #expect(open("/nonexistent/switchboard-errno", O_RDONLY) == -1)
        #expect(Errno.current == .noSuchFileOrDirectory)
    }

    @Test func isThrownAndCaughtAsItself() {
        func failing() throws(Errno) { throw .readOnlyFileSystem }
        do {
            try failing()
            Issue.record("nothing was thrown")
        } catch {
            #expect(error == .readOnlyFileSystem)
        }
    }
}
