import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// The speech announcer speaks one utterance at a time: a new one interrupts the one still
/// being spoken. A stand-in `espeak-ng` records what it was asked to say and whether it was cut off.
@Suite struct SpeechAnnouncerTests {
    @Test func aNewUtteranceInterruptsTheOneBeingSpoken() async throws {
        let folder = try TemporaryFolder()
        let record = folder.path + "/spoken"
        let speaker = folder.path + "/espeak-ng"
        try """
        #!/bin/sh
        trap 'kill $! 2>/dev/null; echo "interrupted: $2" >> \(record); exit 0' TERM
        echo "speaking: $2" >> \(record)
        # A hint takes long (it must be cut off, however slow this machine is), anything else a moment.
        case "$2" in Hold*) sleep 60 & ;; *) sleep 0.2 & ;; esac
        wait $!
        echo "finished: $2" >> \(record)
        """.write(toFile: speaker, atomically: true, encoding: .utf8)
        chmod(speaker, 0o755)
        let speech = SpeechAnnouncer(searchPath: [speaker])
        #expect(speech.executable == speaker)

        func spoken() -> String { (try? String(contentsOfFile: record, encoding: .utf8)) ?? "" }
        func waitUntilSpoken(_ text: String, within limit: Duration = .seconds(10)) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while !spoken().contains(text), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return spoken().contains(text)
        }
        // A script just written can fail to start for a moment (ETXTBSY while a process that other
        // tests are spawning still holds a copy of its descriptor): ask again until it speaks.
        var started = false
        for _ in 0..<5 where !started {
            speech.speak("Hold to Turn On Porch Light")
            started = await waitUntilSpoken("speaking: Hold", within: .seconds(2))
        }
        #expect(started)
        speech.speak("Porch Light: On")
        #expect(await waitUntilSpoken("finished: Porch Light: On"))
        #expect(spoken() == """
        speaking: Hold to Turn On Porch Light
        interrupted: Hold to Turn On Porch Light
        speaking: Porch Light: On
        finished: Porch Light: On

        """)
    }
}
