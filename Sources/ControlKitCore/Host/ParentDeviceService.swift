import SwitchboardSupport

/// The device service of a control extension: every call goes to the daemon that runs the
/// extension, as a ``DeviceRequest`` line on standard output, and returns with its
/// ``DeviceAnswer`` from standard input. The extension never opens a chip itself.
public final class ParentDeviceService: DeviceService {
    private struct Pending {
        var next = 1
        var waiting: [Int: CheckedContinuation<DeviceAnswer, Never>] = [:]
        /// Set once the daemon has gone: every call then fails with it.
        var gone: String?
    }

    private let output: QueuedLineWriter
    // Invariant: a continuation is resumed exactly once: by its answer, or by `disconnect`.
    private let pending = Locked(Pending())

    /// A service writing requests to `output` (the extension's standard output).
    public init(output: QueuedLineWriter) {
        self.output = output
    }

    /// Hands an answer read from standard input to the call waiting for it.
    public func resolve(_ answer: DeviceAnswer) {
        pending.withLock { $0.waiting.removeValue(forKey: answer.answer) }?.resume(returning: answer)
    }

    /// Fails every waiting call and every later one: the daemon closed the extension's input.
    public func disconnect(_ reason: String) {
        let waiting = pending.withLock { state in
            state.gone = reason
            defer { state.waiting = [:] }
            return Array(state.waiting)
        }
        for (call, continuation) in waiting {
            continuation.resume(returning: DeviceAnswer(answer: call, ok: false, error: DeviceError(.noService, reason)))
        }
    }

    private func call(_ operation: DeviceRequest.Operation, id: String? = nil, value: Bool? = nil, kind: String?) async throws -> DeviceAnswer {
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<DeviceAnswer, Never>) in
            let outcome: Result<Int, DeviceError> = pending.withLock { state in
                if let gone = state.gone { return .failure(DeviceError(.noService, gone)) }
                let number = state.next
                state.next += 1
                state.waiting[number] = continuation
                return .success(number)
            }
            switch outcome {
            case .success(let number):
                output.send(ControlLineProtocol.encodeLine(DeviceRequest(operation, id: id, value: value, kind: kind, call: number)))
            case .failure(let error):
                continuation.resume(returning: DeviceAnswer(answer: 0, ok: false, error: error))
            }
        }
        guard answer.ok else { throw answer.error ?? DeviceError(.failed, "the daemon refused the device call without saying why") }
        return answer
    }

    public func devices() async throws -> [DeviceDescription] {
        try await call(.devices, kind: nil).devices ?? []
    }

    public func value(of device: String, for kind: String?) async throws -> Bool? {
        try await call(.value, id: device, kind: kind).value
    }

    public func setValue(_ value: Bool, of device: String, for kind: String?) async throws {
        _ = try await call(.set, id: device, value: value, kind: kind)
    }

    public func pulse(_ device: String, for kind: String?) async throws {
        _ = try await call(.pulse, id: device, kind: kind)
    }
}
