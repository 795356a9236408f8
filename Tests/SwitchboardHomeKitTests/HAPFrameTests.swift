import SwitchboardHomeKit
import Testing

/// HAP's encrypted session frames: lengths, counters, reassembly, and what is refused.
@Suite struct HAPFrameTests {
    let key = (0..<32).map { UInt8($0) }

    func frameLengths(_ frames: [UInt8]) -> [Int] {
        var lengths: [Int] = []
        var offset = 0
        while offset < frames.count {
            let length = Int(frames[offset]) | Int(frames[offset + 1]) << 8
            lengths.append(length)
            offset += 2 + length + 16
        }
        return lengths
    }

    @Test func longMessageIsCutInFramesOf1024AndOpensWhole() throws {
        var sealer = try HAPFrameSealer(key: key)
        var opener = try HAPFrameOpener(key: key)
        let message = (0..<2500).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let frames = try sealer.seal(message)
        #expect(frameLengths(frames) == [1024, 1024, 452])
        #expect(frames.count == 2500 + 3 * 18)
        #expect(sealer.counter == 3)
        #expect(try opener.open(frames) == message)
        #expect(opener.counter == 3)
        #expect(opener.pendingByteCount == 0)
    }

    @Test func frameIsLengthThenCiphertextAndTagUnderTheCounterNonce() throws {
        var sealer = try HAPFrameSealer(key: key)
        _ = try sealer.seal([1])
        let frame = try sealer.seal(Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        let length = [UInt8(19), 0]
        #expect(Array(frame.prefix(2)) == length)
        let expected = try ChaChaPoly.seal(Array("HTTP/1.1 200 OK\r\n\r\n".utf8), key: key, nonce: .session(counter: 1), authenticating: length)
        #expect(Array(frame.dropFirst(2)) == expected)
    }

    @Test func bytesArrivingOneAtATimeAreReassembled() throws {
        var sealer = try HAPFrameSealer(key: key)
        var opener = try HAPFrameOpener(key: key)
        let first = Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)
        let second = [UInt8](repeating: 0x41, count: 1500)
        let bytes = try sealer.seal(first) + sealer.seal(second)
        var received: [UInt8] = []
        for byte in bytes { received += try opener.open([byte]) }
        #expect(received == first + second)
        #expect(opener.counter == 3)
    }

    @Test func alteredFrameIsRefused() throws {
        var sealer = try HAPFrameSealer(key: key)
        var opener = try HAPFrameOpener(key: key)
        var frames = try sealer.seal(Array("PUT /characteristics".utf8))
        frames[5] ^= 0x01
        #expect(throws: HAPFrameError.self) { try opener.open(frames) }
    }

    @Test func replayedOrSkippedFrameIsRefused() throws {
        var sealer = try HAPFrameSealer(key: key)
        let first = try sealer.seal(Array("first".utf8))
        let second = try sealer.seal(Array("second".utf8))
        var replaying = try HAPFrameOpener(key: key)
        #expect(try replaying.open(first) == Array("first".utf8))
        do {
            _ = try replaying.open(first)
            Issue.record("a replayed frame opened")
        } catch {
            #expect(error.code == .authenticationFailed && error.counter == 1)
        }
        var skipping = try HAPFrameOpener(key: key)
        #expect(throws: HAPFrameError.self) { try skipping.open(second) }
    }

    @Test func frameUnderTheOtherDirectionsKeyIsRefused() throws {
        var sealer = try HAPFrameSealer(key: key)
        var opener = try HAPFrameOpener(key: key.reversed())
        #expect(throws: HAPFrameError.self) { try opener.open(try sealer.seal([1, 2, 3])) }
    }

    @Test func lengthOver1024IsRefusedBeforeItsBodyArrives() throws {
        var opener = try HAPFrameOpener(key: key)
        do {
            _ = try opener.open([0x01, 0x04])
            Issue.record("a 1025-byte frame was waited for")
        } catch {
            #expect(error.code == .oversizedFrame)
        }
    }
}
