@testable import SwitchboardCore
import SwitchboardSupport
import Testing

/// Two nodes with one client id throw each other off the broker: seen on the third short
/// connection within a minute, said once.
@Suite struct TakeoverDetectorTests {
    func at(_ seconds: Double) -> OffsetInstant { OffsetInstant(offset: .milliseconds(Int(seconds * 1000))) }

    @Test func threeShortConnectionsInAMinuteAreATakeoverSaidOnce() {
        var detector = TakeoverDetector()
        var said: [Bool] = []
        for start in [0.0, 2, 4, 6, 8] {
            detector.connected(at: at(start))
            said.append(detector.lost(at: at(start + 0.8)))
        }
        #expect(said == [false, false, true, false, false])
    }

    @Test func longConnectionsAndLossesWhileConnectingAreNot() {
        var detector = TakeoverDetector()
        var said: [Bool] = []
        detector.connected(at: at(0))
        said.append(detector.lost(at: at(0.5)))
        detector.connected(at: at(1))
        said.append(detector.lost(at: at(1.5)))
        said.append(detector.lost(at: at(2)))  // a failed attempt is no connection lost
        detector.connected(at: at(10))
        said.append(detector.lost(at: at(16)))  // up for 6 s: an ordinary loss; the count starts again
        detector.connected(at: at(20))
        said.append(detector.lost(at: at(21)))
        #expect(said == [false, false, false, false, false])
    }

    @Test func shortConnectionsSpreadOverMoreThanAMinuteAreNot() {
        var detector = TakeoverDetector()
        var said: [Bool] = []
        for start in [0.0, 40, 80, 120] {
            detector.connected(at: at(start))
            said.append(detector.lost(at: at(start + 1)))
        }
        #expect(said == [false, false, false, false])
    }

    @Test func aTakeoverIsOngoingUntilAMinutePassesWithoutAShortConnection() {
        var detector = TakeoverDetector()
        for start in [0.0, 2, 4] {
            #expect(!detector.isOngoing(at: at(start)))
            detector.connected(at: at(start))
            _ = detector.lost(at: at(start + 0.5))
        }
        #expect(detector.isOngoing(at: at(5)))
        #expect(detector.isOngoing(at: at(64.5)))
        #expect(!detector.isOngoing(at: at(65)), "the node kept its connection for a minute")
    }
}
