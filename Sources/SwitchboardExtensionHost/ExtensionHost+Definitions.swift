import ControlKitCore

extension ExtensionHost {
    /// The listed controls as the daemon's own: each render is a `snapshot` call and each
    /// perform an `act` call to the process. While the extension is down, renders fail (so its
    /// controls go stale and are retried with backoff) and previews come from the last ones seen.
    public func definitions() -> [ControlDefinition] {
        gallery.map { item in
            ControlDefinition(
                kind: item.kind, displayName: item.displayName, description: item.description,
                promptsForUserConfiguration: item.presentation.needsConfiguration, isConfigurable: item.isConfigurable,
                pushHandler: item.pushes == true ? ControlPushHandlerType(relayingAs: "extension \(settings.id) \(item.kind)") { controls in
                    await self.tellPushTokens(item.kind, controls.map(\.placement))
                } : nil,
                // Asked for each time: their choices may come from the devices (which light),
                // which the extension can only list once the node serves; the listed ones while it is down.
                parameters: {
                    (try? await self.call(ControlCommand(.parameters, kind: item.kind), timeout: self.settings.timeout))?.parameters ?? item.parameters
                },
                find: { find in
                    let reply = try await self.call(ControlCommand(.find, kind: item.kind, find: find), timeout: self.settings.timeout)
                    guard reply.ok, let found = reply.parameters?.first else {
                        throw reply.error ?? ControlReply.Failure(code: "failed", message: "extension \"\(self.settings.id)\" failed without saying why")
                    }
                    return found
                },
                render: { mode, configuration in try await self.snapshot(item.kind, configuration, preview: mode == .preview) }
            )
        }
    }

    private func snapshot(_ kind: String, _ configuration: [String: String], preview: Bool) async throws -> TemplateSnapshot {
        let key = "\(kind) \(configuration.sorted { $0.key < $1.key })"
        let snapshot: ControlSnapshot
        do {
            let reply = try await call(ControlCommand(.snapshot, kind: kind, configuration: configuration, preview: preview), timeout: settings.timeout)
            guard reply.ok, let rendered = reply.snapshot else { throw Self.error(reply, kind: kind) }
            snapshot = rendered
            if preview { rememberPreview(rendered, key) }
        } catch {
            guard preview, let remembered = rememberedPreview(key) else { throw error }
            snapshot = remembered
        }
        return snapshot.template { newValue in try await self.act(kind, configuration, newValue) }
    }

    private func act(_ kind: String, _ configuration: [String: String], _ newValue: Bool?) async throws -> any IntentResult {
        let reply = try await actingFor(authenticated: DeviceCenter.performsAuthenticated) {
            try await call(ControlCommand(.act, kind: kind, configuration: configuration, authenticated: true, value: newValue), timeout: settings.timeout)
        }
        guard reply.ok else { throw ExtensionError(reply.error?.message ?? "extension \"\(settings.id)\" failed without saying why") }
        return reply.dialog.map { .result(dialog: IntentDialog(stringLiteral: $0)) } ?? .result()
    }

    /// The error a failed reply stands for; "needs configuring" stays that, so the control shows it.
    static func error(_ reply: ControlReply, kind: String) -> ControlError {
        let message = reply.error?.message ?? "the extension failed without saying why"
        if reply.error?.code == ControlError.Code.needsConfiguration.rawValue {
            return ControlError(.needsConfiguration, kind: kind, detail: message)
        }
        return ControlError(.unavailable, kind: kind, detail: message)
    }
}
