import SwitchboardSupport

/// The devices of the board control code runs on: where ``Relay``, ``Pulse`` and ``Input`` send
/// their calls. A host connects its ``DeviceService`` once, before any control renders.
public final class DeviceCenter: Sendable {
    /// The device center of this process.
    public static let shared = DeviceCenter()

    private let service = Locked<(any DeviceService)?>(nil)

    /// A device center with no service yet.
    public init() {}

    /// Connects the service every device call goes through from now on.
    public func connect(_ service: any DeviceService) {
        self.service.withLock { $0 = service }
    }

    /// The connected service.
    /// - Throws: ``DeviceError`` `.noService` when none is connected.
    public func connectedService() throws -> any DeviceService {
        guard let service = service.withLock({ $0 }) else {
            throw DeviceError(.noService, "no device service: device calls work in switchboardd, in a program that embeds a bundle with SwitchboardDaemon, or in a control extension that switchboardd runs")
        }
        return service
    }

    /// The devices control code may use.
    public func devices() async throws -> [DeviceDescription] {
        try await connectedService().devices()
    }

    /// The control kind whose provider or intent runs in this task: device reads made for it make
    /// its controls reload when the device changes. Set by ``ControlCenter`` and the extension host.
    @TaskLocal public static var controlKind: String?

    /// Whether the action performed in this task was asked for by an authenticated caller (the
    /// local CLI), which may act while Switchboard is locked. Set by ``ControlCenter``.
    @TaskLocal public static var performsAuthenticated = false
}
