#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// This process's id (`getpid`).
    public static var processID: pid_t { getpid() }

    /// Sends `signal` to a process, or to a process group when `process` is negative (`kill`).
    /// Signal 0 only asks whether it exists: ``Errno/noSuchProcess`` if not.
    public static func kill(_ process: pid_t, _ signal: CInt) throws(Errno) {
        _ = try checking { Glibc.kill(process, signal) }
    }

    /// Waits until a child has ended and reaps it (`waitpid`); returns its wait status.
    public static func waitForExit(_ process: pid_t) throws(Errno) -> CInt {
        var status: CInt = 0
        _ = try retrying { waitpid(process, &status, 0) }
        return status
    }

    /// Waits until a child has ended without reaping it (`waitid` with `WNOWAIT`): its pid stays
    /// taken, so that signalling its group meanwhile can reach no other process.
    public static func waitUntilExited(_ process: pid_t) throws(Errno) {
        var info = siginfo_t()
        _ = try retrying { waitid(P_PID, id_t(process), &info, WEXITED | WNOWAIT) }
    }
}
