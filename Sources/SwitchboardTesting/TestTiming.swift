import Foundation

/// How much longer than on a native machine the limits a test sets itself are: the timeouts it
/// configures in a daemon under test and the deadlines it waits for. Read from
/// `SWITCHBOARD_TEST_TIME_SCALE` (a whole number from 1 to 20, default 1); `deploy/arm64/suite.sh`
/// sets it for the arm64 suite under qemu-user, where every program runs several times slower.
/// Limits a test *measures* (a round trip against a budget) are not scaled: they say how fast the
/// code must be, not how long a test waits.
public enum TestTiming {
    /// The factor, 1 on a native machine.
    public static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_TIME_SCALE"],
              let value = Int(text), (1...20).contains(value) else { return 1 }
        return value
    }()

    /// `seconds` scaled: the number of seconds a test should configure or wait.
    public static func seconds(_ seconds: Int) -> Int { seconds * scale }
}
