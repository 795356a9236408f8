import ControlKit
import SwitchboardSupport
import Testing

// Property queries and Foundation written as Apple's App Intents documentation and samples
// write them, with only `import ControlKit` (which re-exports Foundation, as WidgetKit does);
// SwitchboardSupport is for the test's own record of the query's calls (`Locked`).

/// A relay channel of a board, with properties a query can match and sort by.
struct Channel: AppEntity {
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Channel"
    static let defaultQuery = ChannelQuery()
    static let all = [
        Channel(id: 1, name: "Porch", watts: 12, dimmable: false),
        Channel(id: 2, name: "Pond Pump", watts: 40, dimmable: false),
        Channel(id: 3, name: "Kitchen", watts: 9, dimmable: true),
        Channel(id: 4, name: "Attic Fan", watts: 60, dimmable: false),
    ]

    let id: Int
    @Property(title: "Name") var name: String
    @Property(title: "Watts") var watts: Int
    @Property(title: "Dimmable") var dimmable: Bool

    init(id: Int, name: String, watts: Int, dimmable: Bool) {
        self.id = id
        self.name = name
        self.watts = watts
        self.dimmable = dimmable
    }

    var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)", subtitle: "\(watts) W") }
}

/// What the query was last asked, so that a test can check what the runtime passed.
let channelQueryCalls = Locked<[(count: Int, mode: EntityQueryComparatorMode, sorts: [EntityQuerySort<Channel>], limit: Int?)]>([])

/// An enum as the mapping type, inferred from `entities(matching:…)` as Apple's samples do.
enum ChannelCondition {
    case name(String, contains: Bool, prefix: Bool, suffix: Bool)
    case watts(ClosedRange<Int>)
    case dimmable(Bool, equal: Bool)
}

struct ChannelQuery: EntityPropertyQuery {
    static let findIntentDescription: IntentDescription? = "Finds relay channels by name, watts and dimming."

    nonisolated(unsafe) static let properties = QueryProperties {
        Property(\.$name) {
            EqualToComparator { ChannelCondition.name($0, contains: false, prefix: false, suffix: false) }
            ContainsComparator { ChannelCondition.name($0, contains: true, prefix: false, suffix: false) }
            HasPrefixComparator { ChannelCondition.name($0, contains: false, prefix: true, suffix: false) }
            HasSuffixComparator { ChannelCondition.name($0, contains: false, prefix: false, suffix: true) }
        }
        Property(\Channel.$watts) {
            LessThanComparator { ChannelCondition.watts(Int.min...($0 - 1)) }
            LessThanOrEqualToComparator { ChannelCondition.watts(Int.min...$0) }
            GreaterThanComparator { ChannelCondition.watts(($0 + 1)...Int.max) }
            GreaterThanOrEqualToComparator { ChannelCondition.watts($0...Int.max) }
            IsBetweenComparator { lower, upper in ChannelCondition.watts(lower...upper) }
        }
        Property(\Channel.$dimmable) {
            EqualToComparator { ChannelCondition.dimmable($0, equal: true) }
            NotEqualToComparator { ChannelCondition.dimmable($0, equal: false) }
        }
    }

    nonisolated(unsafe) static let sortingOptions = SortingOptions {
        SortableBy(\Channel.$name)
        SortableBy(\Channel.$watts)
    }

    func entities(for identifiers: [Int]) async throws -> [Channel] {
        Channel.all.filter { identifiers.contains($0.id) }
    }

    func suggestedEntities() async throws -> [Channel] { Channel.all }

    func entities(matching comparators: [ChannelCondition], mode: ComparatorMode, sortedBy: [Sort<Channel>], limit: Int?) async throws -> [Channel] {
        channelQueryCalls.withLock { $0.append((comparators.count, mode, sortedBy, limit)) }
        func holds(_ condition: ChannelCondition, _ channel: Channel) -> Bool {
            switch condition {
            case .name(let text, let contains, let prefix, let suffix):
                if contains { return channel.name.contains(text) }
                if prefix { return channel.name.hasPrefix(text) }
                if suffix { return channel.name.hasSuffix(text) }
                return channel.name == text
            case .watts(let range): return range.contains(channel.watts)
            case .dimmable(let value, let equal): return (channel.dimmable == value) == equal
            }
        }
        var found = Channel.all.filter { channel in
            mode == .and ? comparators.allSatisfy { holds($0, channel) } : comparators.contains { holds($0, channel) }
        }
        for sort in sortedBy.reversed() {
            let ascending = sort.order == .ascending
            if sort.by == \Channel.$name { found.sort { ascending ? $0.name < $1.name : $0.name > $1.name } }
            if sort.by == \Channel.$watts { found.sort { ascending ? $0.watts < $1.watts : $0.watts > $1.watts } }
        }
        return Array(found.prefix(limit ?? found.count))
    }
}

struct ChooseChannel: ControlConfigurationIntent {
    static let title: LocalizedStringResource = "Choose Channel"
    @Parameter(title: "Channel") var channel: Channel
}

/// A configurable control whose channel can be found by its properties.
struct ChannelButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        AppIntentControlConfiguration(kind: "com.example.channel", intent: ChooseChannel.self) { configuration in
            ControlWidgetButton(action: WaterGarden()) { Label(configuration.channel.name, systemImage: "bolt") }
        }
    }
}

/// A greenhouse thermometer whose label converts with `Measurement`, from Foundation through ControlKit.
struct GreenhouseProvider: ControlValueProvider {
    var previewValue: Double { 21 }
    func currentValue() async throws -> Double { 21 }
}

struct GreenhouseTemperature: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.greenhouse", provider: GreenhouseProvider()) { celsius in
            let fahrenheit = Measurement(value: celsius, unit: UnitTemperature.celsius).converted(to: .fahrenheit)
            ControlWidgetButton(action: WaterGarden()) {
                Label("Greenhouse \(Int(fahrenheit.value.rounded()))°F", systemImage: "thermometer")
            }
        }
    }
}

@Suite(.serialized, .timeLimit(.minutes(1)))
@MainActor
struct AppleEntityPropertyQueryTests {
    private func center() async throws -> ControlCenter {
        let center = ControlCenter()
        try await center.register([ControlDefinition(ChannelButton.self), ControlDefinition(GreenhouseTemperature.self)])
        return center
    }

    private func found(_ find: EntityFind) async throws -> [String] {
        try await center().find(ofKind: "com.example.channel", find).options.map(\.title)
    }

    private func condition(_ text: String) throws -> EntityFind.Condition { try EntityFind.Condition(parsing: text) }

    @Test func eachComparatorMapsTheValueAskedForAndTheQueryAnswers() async throws {
        #expect(try await found(EntityFind(conditions: [condition("Name = Porch")])) == ["Porch"])
        #expect(try await found(EntityFind(conditions: [condition("name contains Po")])) == ["Porch", "Pond Pump"])
        #expect(try await found(EntityFind(conditions: [condition("Name prefix Att")])) == ["Attic Fan"])
        #expect(try await found(EntityFind(conditions: [condition("Name suffix Pump")])) == ["Pond Pump"])
        #expect(try await found(EntityFind(conditions: [condition("Watts < 12")])) == ["Kitchen"])
        #expect(try await found(EntityFind(conditions: [condition("Watts <= 12")])) == ["Porch", "Kitchen"])
        #expect(try await found(EntityFind(conditions: [condition("Watts > 40")])) == ["Attic Fan"])
        #expect(try await found(EntityFind(conditions: [condition("Watts >= 40")])) == ["Pond Pump", "Attic Fan"])
        #expect(try await found(EntityFind(conditions: [condition("Watts between 10 and 40")])) == ["Porch", "Pond Pump"])
        #expect(try await found(EntityFind(conditions: [condition("Dimmable = true")])) == ["Kitchen"])
        #expect(try await found(EntityFind(conditions: [condition("Dimmable != yes")])) == ["Porch", "Pond Pump", "Attic Fan"])
    }

    @Test func modeSortAndLimitReachTheQueryAsAsked() async throws {
        channelQueryCalls.withLock { $0 = [] }
        let found = try await found(EntityFind(
            conditions: [condition("Watts > 40"), condition("Name contains Po")], matchesAny: true,
            sort: [EntityFind.SortKey(parsing: "watts:desc"), EntityFind.SortKey(parsing: "Name")], limit: 2
        ))
        #expect(found == ["Attic Fan", "Pond Pump"])
        let call = try #require(channelQueryCalls.withLock { $0.last })
        #expect(call.count == 2)
        #expect(call.mode == .or)
        #expect(call.sorts.map(\.by) == [\Channel.$watts, \Channel.$name])
        #expect(call.sorts.map(\.order) == [.descending, .ascending])
        #expect(call.limit == 2)
        #expect(try await self.found(EntityFind(conditions: [condition("Watts > 10"), condition("Name contains Po")])) == ["Porch", "Pond Pump"],
                "all conditions, by default")
        #expect(channelQueryCalls.withLock { $0.last?.mode } == .and)
    }

    @Test func aFindThatDoesNotFitTheQueryIsRefusedSayingWhatWould() async throws {
        let cases: [(EntityFind, String)] = [
            (EntityFind(conditions: [try condition("Colour = red")]), #"Channel has no property "Colour" to find by (properties: Name, Watts, Dimmable)"#),
            (EntityFind(conditions: [try condition("Dimmable < true")]), "Dimmable cannot be compared with < (it can with: = !=)"),
            (EntityFind(conditions: [try condition("Watts > lots")]), #"Watts >: "lots" is not a value of Watts"#),
            (EntityFind(sort: [EntityFind.SortKey(parsing: "Dimmable")]), #"Channel cannot be sorted by "Dimmable" (by: Name, Watts)"#),
            (EntityFind(limit: 0), "a limit is at least 1, not 0"),
            (EntityFind(parameter: "light"), #""light" is not a parameter (parameters: channel)"#),
        ]
        for (find, detail) in cases {
            await #expect(throws: ControlError(.wrongRequest, kind: "com.example.channel", detail: detail)) {
                try await self.center().find(ofKind: "com.example.channel", find)
            }
        }
        await #expect(throws: ControlError.self) { try await self.center().find(ofKind: "com.example.greenhouse", EntityFind()) }
    }

    @Test func conditionsAreReadAsTheCLIWritesThem() throws {
        #expect(try EntityFind.Condition(parsing: "Publishing Date between 2024-01-01 and 2024-12-31")
            == EntityFind.Condition(property: "Publishing Date", comparison: .isBetween, values: ["2024-01-01", "2024-12-31"]))
        #expect(try EntityFind.Condition(parsing: "Name = Kitchen Light")
            == EntityFind.Condition(property: "Name", comparison: .equalTo, values: ["Kitchen Light"]))
        for text in ["porch", "= porch", "Name =", "Watts between 5", "Watts between and 5"] {
            #expect(throws: EntityFindError.self, "\(text)") { try EntityFind.Condition(parsing: text) }
        }
        #expect(EntityFind.SortKey(parsing: "Watts:DESC") == EntityFind.SortKey(property: "Watts", descending: true))
        #expect(EntityFind.SortKey(parsing: "Watts:asc") == EntityFind.SortKey(property: "Watts"))
    }

    @Test func entityPropertiesAreSharedByCopiesAndNamedByTheirTitles() {
        let porch = Channel.all[0]
        let copy = porch
        copy.watts = 15
        #expect(porch.watts == 15, "a property is a class, as AppIntents' EntityProperty")
        copy.watts = 12
        #expect(porch.$watts.title == "Watts")
        #expect(ChannelQuery.findIntentDescription == "Finds relay channels by name, watts and dimming.")
        #expect(ChannelQuery.properties.properties.count == 3)
    }

    @Test func foundationComesWithControlKit() async throws {
        let center = try await center()
        let placed = try await center.place(kind: "com.example.greenhouse", in: .controlCenter, id: "greenhouse")
        #expect(placed.title == "Greenhouse 70°F")
        let noon = try Date("2026-11-25T12:00:00Z", strategy: .iso8601)
        #expect(noon.timeIntervalSince1970 == 1_795_608_000)
        #expect(Measurement(value: 1, unit: UnitLength.kilometers).converted(to: .meters).value == 1000)
    }
}
