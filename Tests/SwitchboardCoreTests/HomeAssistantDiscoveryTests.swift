import ControlKit
import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// Discovery payloads as pure values: SF Symbols as Home Assistant icons, the names a configurable
/// control's select offers, and a placement's `homeAssistant` block.
@Suite struct HomeAssistantDiscoveryTests {
    static let discovery = HomeAssistantDiscovery(prefix: "homeassistant", node: "shed", nodeName: "Shed", topics: TopicContract(base: "switchboard/shed"), version: "1")

    static func presentation(_ template: ControlTemplateKind = .toggle, symbol: String = "lightbulb") -> ControlPresentation {
        ControlPresentation(
            id: "any", kind: "light", template: template, space: .controlCenter, size: .medium, displayName: "Light", title: nil,
            value: false, valueText: "Off", symbol: symbol, tint: nil, status: nil, actionHint: nil
        )
    }

    @Test(arguments: [
        ("lightbulb", "mdi:lightbulb"),
        ("lightbulb.fill", "mdi:lightbulb"),
        ("lightbulb.slash", "mdi:lightbulb-off"),
        ("fan.fill", "mdi:fan"),
        ("door.garage.closed", "mdi:garage"),
        ("door.garage.open", "mdi:garage-open"),
        ("sprinkler.and.droplets.fill", "mdi:sprinkler-variant"),
        ("hourglass.bottomhalf.filled", "mdi:timer-sand"),
        ("poweroutlet.type.f.fill", "mdi:power-socket-de"),
    ])
    func symbolsMapToIcons(symbol: String, icon: String) {
        #expect(HomeAssistantIcons.icon(forSymbol: symbol) == icon)
    }

    @Test func aSymbolWithNoMatchGivesNoIcon() {
        #expect(HomeAssistantIcons.icon(forSymbol: "tortoise.fill") == nil)
        #expect(HomeAssistantIcons.icon(forSymbol: "") == nil)
    }

    @Test func everyIconIsAnMDIName() {
        let bad = HomeAssistantIcons.table.filter { symbol, icon in
            !icon.hasPrefix("mdi:") || icon.dropFirst(4).isEmpty || symbol.split(separator: ".").contains("fill")
        }
        #expect(bad.isEmpty, "\(bad)")
    }

    @Test func aSelectNamesDevicesAndTellsApartTwoOfTheSameName() throws {
        let messages = Self.discovery.messages(for: Self.presentation(), devices: [
            ParameterOption(id: "porch", title: "Light"), ParameterOption(id: "shed", title: "Light"), ParameterOption(id: "fan", title: "Fan"),
        ])
        guard case .object(let select)? = messages.last?.payload else { Issue.record("no select: \(messages)"); return }
        let fields = Dictionary(select.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(fields["options"] == .array([.string("Light (porch)"), .string("Light (shed)"), .string("Fan")]))
        #expect(fields["command_template"] == .string(#"{{ {"Fan":"fan","Light (porch)":"porch","Light (shed)":"shed"}[value] }}"#))
        #expect(fields["value_template"] == .string(#"{{ {"fan":"Fan","porch":"Light (porch)","shed":"Light (shed)"}.get(value, value) }}"#))
    }

    @Test func aPlacementsBlockSetsClassCategoryIconAndDisablesIt() {
        let settings = HomeAssistantEntitySettings(component: .switch, deviceClass: "outlet", icon: "mdi:power-socket-de", entityCategory: .config, enabled: false)
        let message = Self.discovery.entityMessage(for: Self.presentation(), settings: settings)
        #expect(message?.topic == "homeassistant/switch/shed/any/config")
        let text = message?.payload.map { ControlLineProtocol.encodeLine($0) } ?? ""
        for field in [#""device_class":"outlet""#, #""entity_category":"config""#, #""enabled_by_default":false"#, #""icon":"mdi:power-socket-de""#, #""unique_id":"switchboard_shed_any""#] {
            #expect(text.contains(field), "\(field) in \(text)")
        }
        let plain = Self.discovery.entityMessage(for: Self.presentation())?.payload.map { ControlLineProtocol.encodeLine($0) } ?? ""
        #expect(!plain.contains("device_class") && !plain.contains("entity_category") && !plain.contains("enabled_by_default"), "\(plain)")
        #expect(plain.contains(#""icon":"mdi:lightbulb""#), "\(plain)")
    }

    @Test func aButtonStaysAButtonWhateverItsBlockSays() {
        let message = Self.discovery.entityMessage(for: Self.presentation(.button, symbol: "door.garage.open"), settings: HomeAssistantEntitySettings(component: .light))
        #expect(message?.topic == "homeassistant/button/shed/any/config")
        let text = message?.payload.map { ControlLineProtocol.encodeLine($0) } ?? ""
        #expect(text.contains(#""icon":"mdi:garage-open""#) && text.contains(#""payload_press":"PRESS""#), "\(text)")
    }

    @Test func aPlacementInAnAreaIsADeviceOfItsOwn() {
        let message = Self.discovery.entityMessage(for: Self.presentation(), settings: HomeAssistantEntitySettings(area: "Porch"))
        let text = message?.payload.map { ControlLineProtocol.encodeLine($0) } ?? ""
        #expect(text.contains(#""device":{"identifiers":["switchboard_shed_any"],"manufacturer":"Switchboard","model":"placed control","name":"Light","suggested_area":"Porch","via_device":"switchboard_shed"}"#), "\(text)")
        #expect(text.contains(#""name":null"#), "\(text)")
    }

    @Test func theNodesOwnDiscoveryTopicsAreThoseUnderItsID() {
        let discovery = Self.discovery
        #expect(discovery.ownFilter == "homeassistant/+/shed/+/config")
        for topic in ["homeassistant/light/shed/porch/config", "homeassistant/device_automation/shed/button_short/config"] {
            #expect(discovery.isOwn(topic), "\(topic)")
        }
        for topic in ["homeassistant/light/garage/porch/config", "homeassistant/light/shed/porch", "homeassistant/status", "homeassistant//shed/x/config",
                      "homeassistant/light/shed/porch/extra/config", "other/light/shed/porch/config", "homeassistant/light/shed//config"] {
            #expect(!discovery.isOwn(topic), "\(topic)")
        }
    }
}
