/// How long a controller must wait before it may try pair-setup again after wrong setup codes:
/// nothing after the first three failed attempts, then 2 s after the fourth, doubling with each
/// further one to at most an hour. HAP's accessory refuses pair-setup for good after 100 (MaxTries);
/// the wait makes someone guessing codes take days to reach that, instead of seconds, and slows
/// guessing itself. An M1 sent too soon is answered with kTLVError_Backoff and the seconds left
/// (kTLVType_RetryDelay), and is not counted as an attempt.
public enum PairSetupBackoff {
    /// The longest wait.
    public static let longest = Duration.seconds(3600)

    /// The wait after the latest of `failures` failed attempts.
    public static func delay(afterFailures failures: Int) -> Duration {
        guard failures > 3 else { return .zero }
        let exponent = min(failures - 3, 12)
        return min(.seconds(1 << exponent), longest)
    }

    /// What is left of the wait `sinceLastFailure` after the last of `failures` failed
    /// attempts; nil when pair-setup may be tried now.
    public static func remaining(failures: Int, sinceLastFailure elapsed: Duration) -> Duration? {
        let left = delay(afterFailures: failures) - elapsed
        return left > .zero ? left : nil
    }

    /// The retry delay item's value: whole seconds, rounded up, little-endian.
    static func retryDelayBytes(_ wait: Duration) -> [UInt8] {
        let (seconds, attoseconds) = wait.components
        var whole = UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
        var bytes: [UInt8] = []
        repeat {
            bytes.append(UInt8(whole & 0xFF))
            whole >>= 8
        } while whole > 0
        return bytes
    }
}
