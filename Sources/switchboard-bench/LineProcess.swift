import Foundation
import SwitchboardSupport
import SwitchboardTesting

/// A child process the benchmark talks with in lines: its standard input and output are pipes
/// held by the benchmark, its standard error goes to a file. Stopped (SIGTERM, then SIGKILL) when
/// it goes.
final class LineProcess {
    let pid: pid_t
    let name: String
    let errorPath: String
    private let process: ChildProcess
    private let input: Int32
    private let output: Int32
    private var pending: [UInt8] = []

    /// Starts `path` with `arguments`; `name` is how errors call it.
    init(_ path: String, _ arguments: [String], name: String, errorPath: String) throws {
        self.name = name
        self.errorPath = errorPath
        // A child that died must be an error the benchmark reports, not SIGPIPE ending it.
        signal(SIGPIPE, SIG_IGN)
        let toChild = try SystemCall.pipe(), fromChild = try SystemCall.pipe()
        let error = try SystemCall.open(errorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        defer { SystemCall.close(error); SystemCall.close(toChild.read); SystemCall.close(fromChild.write) }
        switch ProcessSpawn.spawn(path, arguments, standardInput: toChild.read, standardOutput: fromChild.write, standardError: error) {
        case .success(let child): pid = child; process = ChildProcess(adopting: child)
        case .failure(let failure):
            SystemCall.close(toChild.write)
            SystemCall.close(fromChild.read)
            throw HarnessError("cannot start \(name) (\(path)): \(failure.description)")
        }
        input = toChild.write
        output = fromChild.read
    }

    deinit {
        stop()
        SystemCall.close(input)
        SystemCall.close(output)
    }

    /// Writes one line to the child's standard input.
    func send(_ line: String) throws {
        do { try SystemCall.writeAll(Array((line + "\n").utf8), to: input) } catch {
            throw HarnessError("\(name) no longer reads its input (\(error)); its errors: \(errors)")
        }
    }

    /// The child's next line of output; an error at its end or after `timeout`.
    func readLine(timeout: Duration = .seconds(30)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...end) }
                return String(decoding: pending[..<end], as: UTF8.self)
            }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(name) said nothing for \(timeout); its errors: \(errors)")
            }
            var ready = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            guard try SystemCall.poll(&ready, timeout: min(SystemCall.milliseconds(until: deadline), 1000)) > 0 else { continue }
            let count = try SystemCall.read(output, into: &chunk)
            guard count > 0 else { throw HarnessError("\(name) ended; its errors: \(errors)") }
            pending += chunk[..<count]
        }
    }

    /// Reads lines until one is `line` (a program's banner may come first).
    func waitFor(_ line: String, timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while try readLine(timeout: max(deadline - .now, .milliseconds(1))) != line {}
    }

    /// The last lines the child wrote to standard error.
    var errors: String {
        let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    /// Sends SIGTERM, and SIGKILL if the child has not ended within `grace`; reaps it.
    func stop(grace: Duration = .seconds(3)) {
        process.stop(grace: grace)
    }
}
