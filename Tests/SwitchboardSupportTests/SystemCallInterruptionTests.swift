import Foundation
import SwitchboardSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A signal with a handler installed without `SA_RESTART` interrupts a blocking call with `EINTR`:
/// the seam reads on, where a plain `read` gives up.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SystemCallInterruptionTests {
    /// What a reader thread's read came to.
    enum Outcome: Equatable, Sendable {
        case read(Int)
        case failed(Errno)
    }

    /// Starts a thread that reads one pipe with `read`, SIGUSR2 unblocked on it, and interrupts it
    /// with SIGUSR2 (handled by a handler that does nothing, without `SA_RESTART`) every 10 ms
    /// until it ends or 100 signals were sent; then writes a byte, and waits for the outcome.
    ///
    /// The reader blocks SIGUSR2 again as soon as its read returns, and lives until no more
    /// signals are sent: a signal sent after its read ended then stays pending on it and goes with
    /// it, instead of arriving after the handler is put back to SIGUSR2's default, which ends the
    /// whole test process (it did once under AddressSanitizer).
    static func interruptedRead(_ read: @escaping @Sendable (CInt) -> Outcome) throws -> (outcome: Outcome, signals: Int) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        let ends = try SystemCall.pipe()
        defer { SystemCall.close(ends.read); SystemCall.close(ends.write) }
        let thread = Locked<pthread_t?>(nil)
        let outcome = Locked<Outcome?>(nil)
        let signalling = Locked(true)
        let reader = Thread {
            var usr2 = sigset_t()
            sigemptyset(&usr2)
            sigaddset(&usr2, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &usr2, nil)
            thread.withLock { $0 = pthread_self() }
            let result = read(ends.read)
            pthread_sigmask(SIG_BLOCK, &usr2, nil)
            outcome.withLock { $0 = result }
            while signalling.withLock({ $0 }) { usleep(1000) }
        }
        // Set after the last signal was sent (the deferred closes and restore run after it).
        defer { signalling.withLock { $0 = false } }
        reader.start()
        var signals = 0
        while outcome.withLock({ $0 }) == nil, signals < 100 {
            usleep(10_000)
            if let target = thread.withLock({ $0 }) {
                pthread_kill(target, SIGUSR2)
                signals += 1
            }
        }
        try SystemCall.writeAll([42], to: ends.write)
        while outcome.withLock({ $0 }) == nil { usleep(1000) }
        return (outcome.withLock { $0 }!, signals)
    }

    /// One byte through ``SystemCall/read(_:into:)``.
    static func seamRead(_ descriptor: CInt) -> Outcome {
        var buffer: [UInt8] = [0]
        do {
            return .read(try SystemCall.read(descriptor, into: &buffer))
        } catch {
            return .failed(error)
        }
    }

    @Test func aSignalInterruptsAPlainRead() throws {
        // The control: without the seam the same signal ends the read with EINTR.
        let (outcome, _) = try Self.interruptedRead { descriptor in
            var byte: UInt8 = 0
            let count = Glibc.read(descriptor, &byte, 1)
            return count < 0 ? .failed(.current) : .read(count)
        }
        #expect(outcome == .failed(.interrupted))
    }

    @Test func theSeamReadsOnThroughSignals() throws {
        let (outcome, signals) = try Self.interruptedRead(Self.seamRead)
        #expect(signals == 100, "the read was interrupted again and again")
        #expect(outcome == .read(1))
    }
}
