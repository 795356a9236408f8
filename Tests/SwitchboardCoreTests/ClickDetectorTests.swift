@testable import SwitchboardCore
import Testing

/// Short, double and long presses told apart by their edge timestamps, at the exact boundaries.
struct ClickDetectorTests {
    let ms = Duration.milliseconds

    @Test func aShortPressIsToldWhenTheDoubleWindowCloses() {
        var detector = ClickDetector(longTime: ms(800), doubleWindow: ms(300))
        #expect(detector.press(at: ms(1000)) == .init(checkAt: ms(1800)))
        #expect(detector.release(at: ms(1100)) == .init(checkAt: ms(1400)))
        #expect(detector.check(at: ms(1399)) == .init())
        #expect(detector.check(at: ms(1400)) == .init(clicks: [.short]))
        #expect(detector.state == .idle)
        #expect(detector.check(at: ms(1800)) == .init(), "the long check of a press already told is nothing")
    }

    @Test func withoutADoublePressAShortOneIsToldAtItsRelease() {
        var detector = ClickDetector(longTime: ms(800), doubleWindow: .zero)
        _ = detector.press(at: ms(0))
        #expect(detector.release(at: ms(799)) == .init(clicks: [.short]))
    }

    @Test func aSecondPressWithinTheWindowIsADouble() {
        var detector = ClickDetector(longTime: ms(800), doubleWindow: ms(300))
        _ = detector.press(at: ms(0))
        _ = detector.release(at: ms(100))
        #expect(detector.press(at: ms(400)) == .init(), "exactly at the window's end still counts")
        #expect(detector.release(at: ms(500)) == .init(clicks: [.double]))
        #expect(detector.check(at: ms(800)) == .init(), "the first press's long check comes to nothing")
    }

    @Test func aPressHeldForTheLongTimeIsLongAtOnceAndItsReleaseIsNothing() {
        var detector = ClickDetector(longTime: ms(800), doubleWindow: ms(300))
        _ = detector.press(at: ms(0))
        #expect(detector.check(at: ms(800)) == .init(clicks: [.long]))
        #expect(detector.release(at: ms(2000)) == .init())
        #expect(detector.state == .idle)
    }

    @Test func lateChecksStillTellThePressesRight() {
        var detector = ClickDetector(longTime: ms(800), doubleWindow: ms(300))
        _ = detector.press(at: ms(0))
        #expect(detector.release(at: ms(900)) == .init(clicks: [.long]), "released after the long time before its check ran")
        _ = detector.press(at: ms(1000))
        _ = detector.release(at: ms(1100))
        #expect(detector.press(at: ms(1500)) == .init(clicks: [.short], checkAt: ms(2300)), "a press after the window, before its check: the first was short")
    }
}
