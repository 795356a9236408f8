extension DeviceService {
    /// Carries out a control extension's device call (a ``DeviceRequest`` line) and gives the
    /// ``DeviceAnswer`` to send back: the value, the devices, or the ``DeviceError`` that refused it.
    /// - Parameter kind: the control kind the call is made for, as the host trusts it (nil: none).
    public func answer(_ request: DeviceRequest, for kind: String?) async -> DeviceAnswer {
        do {
            switch request.device {
            case .devices:
                return DeviceAnswer(answer: request.call, devices: try await devices())
            case .value:
                return DeviceAnswer(answer: request.call, value: try await value(of: try Self.required(request.id), for: kind))
            case .set:
                guard let value = request.value else { throw DeviceError(.failed, "\"set\" needs \"value\"") }
                try await setValue(value, of: try Self.required(request.id), for: kind)
            case .pulse:
                try await pulse(try Self.required(request.id), for: kind)
            }
            return DeviceAnswer(answer: request.call)
        } catch let error as DeviceError {
            return DeviceAnswer(answer: request.call, ok: false, error: error)
        } catch {
            return DeviceAnswer(answer: request.call, ok: false, error: DeviceError(.failed, String(describing: error)))
        }
    }

    private static func required(_ id: String?) throws -> String {
        guard let id else { throw DeviceError(.unknownDevice, "a device call needs \"id\"") }
        return id
    }
}
