@testable import ControlKitCore
import ControlKit
import Testing

// Intents and entities written as Apple's App Intents documentation writes them, with only
// `import ControlKit` (which re-exports FoundationEssentials: URL, UUID, Date below).

struct WaterGarden: AppIntent {
    static let title: LocalizedStringResource = "Water Garden"
    func perform() async throws -> some IntentResult & ProvidesDialog {
        .result(dialog: "Watered for 10 minutes")
    }
}

struct ShowGardenCamera: AppIntent {
    static let title: LocalizedStringResource = "Garden Camera"
    func perform() async throws -> some IntentResult & OpensIntent {
        .result(opensIntent: OpenURLIntent(URL(string: "https://cam.home.arpa/garden")!))
    }
}

struct OpenGardenApp: AppIntent {
    static let title: LocalizedStringResource = "Garden"
    static let openAppWhenRun = true
    func perform() async throws -> some IntentResult { .result() }
}

struct PlayDoorbell: AudioPlaybackIntent {
    static let title: LocalizedStringResource = "Doorbell"
    func perform() async throws -> some IntentResult & ProvidesDialog { .result(dialog: "Ding") }
}

/// Buttons for each intent: `ControlWidget` bodies as WidgetKit's.
struct GardenButton<Intent: AppIntent>: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.garden.\(Intent.self)") {
            ControlWidgetButton(action: Intent()) { Label(Intent.title.key, systemImage: "leaf") }
        }
        .displayName("Garden")
    }
}

/// Sprinkler zones, listed by an `EnumerableEntityQuery`, identified by `UUID`s.
struct Zone: AppEntity {
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Zone"
    static let defaultQuery = ZoneQuery()
    static let lawn = Zone(id: UUID(uuidString: "2E8A1C7E-8D5B-4C1B-9C43-6F1F0F6A0001")!, name: "Lawn")
    static let beds = Zone(id: UUID(uuidString: "2E8A1C7E-8D5B-4C1B-9C43-6F1F0F6A0002")!, name: "Flower Beds")
    let id: UUID
    let name: String
    var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }
}

struct ZoneQuery: EnumerableEntityQuery {
    func allEntities() async throws -> [Zone] { [.lawn, .beds] }
}

/// The garden's one settings entity.
struct GardenSettings: UniqueAppEntity {
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Garden Settings"
    static let defaultQuery = UniqueAppEntityProvider { GardenSettings() }
    var id: String { "garden" }
    var displayRepresentation: DisplayRepresentation { "Garden Settings" }
}

struct ChooseZone: ControlConfigurationIntent {
    static let title: LocalizedStringResource = "Choose Zone"
    @Parameter(title: "Zone") var zone: Zone?
}

@Suite(.timeLimit(.minutes(1)))
@MainActor
struct AppleIntentsAPITests {
    private func pressed<Intent: AppIntent>(_ intent: Intent.Type) async throws -> PerformOutcome {
        let center = ControlCenter()
        try await center.register([ControlDefinition(GardenButton<Intent>.self)])
        try await center.place(kind: "com.example.garden.\(Intent.self)", in: .controlCenter, id: "garden")
        return try await center.perform("garden", .press)
    }

    @Test func aResultThatProvidesADialogIsTheOutcomesDialog() async throws {
        #expect(try await pressed(WaterGarden.self).dialog == "Watered for 10 minutes")
        #expect(try await pressed(PlayDoorbell.self).dialog == "Ding", "an audio intent runs as any intent")
    }

    @Test func anOpenedIntentRunsNextAndAURLIsAnnounced() async throws {
        #expect(try await pressed(ShowGardenCamera.self).dialog == "Open https://cam.home.arpa/garden")
    }

    @Test func openAppWhenRunSaysWhichAppToOpen() async throws {
        #expect(try await pressed(OpenGardenApp.self).dialog == "Open Garden")
        #expect(try await pressed(WaterGarden.self).dialog != "Open Garden", "its own dialog wins")
    }

    @Test func anEnumerableQueryListsAndFindsItsEntitiesByUUID() async throws {
        let parameters = await ControlParameter.parameters(of: ChooseZone())
        #expect(parameters.first?.options.map(\.title) == ["Lawn", "Flower Beds"])
        #expect(parameters.first?.options.first?.id == "2E8A1C7E-8D5B-4C1B-9C43-6F1F0F6A0001")
        let configured = try await ChooseZone.configured(with: ["zone": "2E8A1C7E-8D5B-4C1B-9C43-6F1F0F6A0002"], kind: "com.example.zone")
        #expect(configured.zone?.name == "Flower Beds")
        #expect(try await ZoneQuery().entities(for: [Zone.lawn.id]).map(\.name) == ["Lawn"])
        #expect(UUID.entityIdentifier(for: "not a uuid") == nil)
    }

    @Test func aUniqueEntityIsItsQuerysOnlyEntity() async throws {
        #expect(try await GardenSettings.defaultQuery.allEntities().map(\.id) == ["garden"])
        #expect(await GardenSettings.defaultQuery.defaultResult()?.id == "garden")
        await #expect {
            try await UniqueAppEntityProvider<GardenSettings>().uniqueEntity()
        } throws: { error in
            "\(error)" == "UniqueAppEntityProvider<GardenSettings> has no provider: create it with UniqueAppEntityProvider { … } as the entity's defaultQuery"
        }
    }

    @Test func foundationsEssentialsComeWithControlKit() {
        let started = Date()
        #expect(URL(string: "https://example.com/a")?.lastPathComponent == "a")
        #expect(UUID().uuidString.count == 36)
        #expect(Date().timeIntervalSince(started) >= 0)
    }
}
