import ControlKitCore
import Foundation
import SwitchboardSupport

/// Runs a control extension as its daemon would: commands go to its standard input, replies and
/// events come from its standard output, and every ``DeviceRequest`` it makes is answered by a
/// ``DeviceService`` (an ``InMemoryDevices`` home), so its ``Relay``, ``Pulse`` and ``Input``
/// calls work. Both streams are FIFOs in a temporary folder; standard error goes to a file.
public final class ExtensionHarness: @unchecked Sendable {
    // Invariant: used by one test at a time; `lines`, `input` and `nextCall` are touched only by
    // its calls, one at a time.
    private let process: ChildProcess
    private let folder: String
    private let devices: any DeviceService
    private var input: Int32
    private var lines: FileDescriptorLines.Iterator
    private var nextCall = 1
    /// The event lines the extension wrote so far (`{"event":…}`), in order.
    public private(set) var events: [String] = []
    /// The device requests it made so far, in order.
    public private(set) var deviceRequests: [DeviceRequest] = []

    /// Starts the executable at `path`.
    public init(_ path: String, arguments: [String] = [], devices: any DeviceService) throws {
        // A write to an extension that has just ended must fail with EPIPE, not end the tests.
        signal(SIGPIPE, SIG_IGN)
        self.devices = devices
        folder = NSTemporaryDirectory() + "switchboard-extension-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let inputPath = folder + "/stdin", outputPath = folder + "/stdout"
        do {
            try SystemCall.mkfifo(inputPath, mode: 0o600)
            try SystemCall.mkfifo(outputPath, mode: 0o600)
        } catch {
            throw HarnessError("mkfifo in \(folder): \(error.message)")
        }
        // Held open for reading and writing while the child opens its ends, so neither open
        // waits for the other side. Every descriptor here is close-on-exec: a child that another
        // test starts meanwhile must not hold an end, or this child would never see its input end.
        let inputHold = open(inputPath, O_RDWR | O_CLOEXEC), outputHold = open(outputPath, O_RDWR | O_CLOEXEC)
        defer {
            close(inputHold)
            close(outputHold)
        }
        process = try ChildProcess(path, arguments, inputPath: inputPath, logPath: outputPath, errorPath: folder + "/stderr")
        // Once the holds close, the child is the only reader of its input and the only writer of
        // its output: closing `input` is its end of input, and its exit ends `lines`.
        input = open(inputPath, O_WRONLY | O_CLOEXEC)
        let output = open(outputPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        lines = FileDescriptorLines(descriptor: output).makeAsyncIterator()
        close(output)
    }

    deinit {
        if input >= 0 { close(input) }
        process.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// What the extension wrote on standard error.
    public var standardError: String { (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? "" }

    /// Sends one line and returns its reply, answering the extension's device requests meanwhile.
    /// A command is sent with the next call number (as a daemon sends them: each runs at once)
    /// and its reply is the one carrying that number; any other line is sent as it is, and its
    /// reply is the next one without a number. `numbered: false` sends a command as it is, as
    /// the CLI piped into an extension does.
    public func send(_ line: String, numbered: Bool = true) async throws -> ControlReply {
        var call: Int?
        var sent = line
        if numbered, case .success(var command) = ControlLineProtocol.decodeCommand(Substring(line)) {
            command.call = nextCall
            call = nextCall
            nextCall += 1
            sent = ControlLineProtocol.encodeLine(command)
        }
        try write(sent)
        while let read = await lines.next() {
            guard case .line(let text) = read else { continue }
            switch ControlLineProtocol.kind(of: text) {
            case .deviceRequest:
                guard let request = ControlLineProtocol.decode(DeviceRequest.self, from: text) else { throw HarnessError("not a device request: \(text)") }
                deviceRequests.append(request)
                try write(ControlLineProtocol.encodeLine(await devices.answer(request, for: request.kind)))
            case .event:
                events.append(String(text))
            case .reply:
                guard let reply = ControlLineProtocol.decode(ControlReply.self, from: text) else { throw HarnessError("not a reply: \(text)") }
                if reply.call == call { return reply }
            default:
                throw HarnessError("the extension wrote a line that is no reply, event or device request: \(text)")
            }
        }
        throw HarnessError("the extension ended before replying to \(sent):\n\(standardError)")
    }

    /// Ends its input and waits for it to exit (on a thread of its own, never blocking the
    /// cooperative pool); returns its exit status.
    public func finish() async -> Int32 {
        close(input)
        input = -1
        return await process.exit()
    }

    private func write(_ line: String) throws {
        do {
            try SystemCall.writeAll(Array((line + "\n").utf8), to: input)
        } catch {
            throw HarnessError("writing to the extension: \(error.message)\n\(standardError)")
        }
    }
}
