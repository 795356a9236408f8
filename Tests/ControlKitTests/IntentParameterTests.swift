@testable import ControlKitCore
import ControlKit
import Testing

enum FanSpeed: String, AppEnum {
    case low, medium, high
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Fan Speed"
    static let caseDisplayRepresentations: [FanSpeed: DisplayRepresentation] = [.low: "Low", .medium: "Medium", .high: "High"]
}

struct SetFanIntent: AppIntent {
    static let title: LocalizedStringResource = "Set Fan"
    @Parameter(title: "Speed") var speed: FanSpeed
    @Parameter(title: "Minutes") var minutes: Int
    @Parameter(title: "Label") var label: String
    @Parameter(title: "Oscillate", default: true) var oscillate: Bool
    @Parameter(title: "Room") var room: String?

    func perform() async throws -> some IntentResult { .result() }
}

@Suite struct IntentParameterTests {
    @Test func unsetParametersReadAsTheirTypesNaturalDefault() {
        let intent = SetFanIntent()
        #expect(intent.speed == .low)
        #expect(intent.minutes == 0)
        #expect(intent.label == "")
        #expect(intent.oscillate == true)
        #expect(intent.room == nil)
    }

    @Test func copiesOfAnIntentKeepTheirOwnValues() {
        var first = SetFanIntent()
        first.minutes = 10
        var second = first
        second.minutes = 20
        second.speed = .high
        #expect(first.minutes == 10)
        #expect(first.speed == .low)
        #expect(second.minutes == 20)
        #expect(second.speed == .high)
    }

    @Test func parametersAreFoundInDeclarationOrderWithTheirChoices() async {
        let parameters = await ControlParameter.parameters(of: SetFanIntent())
        #expect(parameters.map(\.name) == ["speed", "minutes", "label", "oscillate", "room"])
        #expect(parameters[0] == ControlParameter(name: "speed", title: "Speed", type: "Fan Speed", options: [
            ParameterOption(id: "low", title: "Low"), ParameterOption(id: "medium", title: "Medium"), ParameterOption(id: "high", title: "High"),
        ]))
        #expect(parameters[3].options.map(\.id) == ["true", "false"])
        #expect(parameters[4].type == "String?")
    }

    @Test func configurationStringsSetTypedValues() async throws {
        let intent = try await SetFanIntent.configured(with: ["speed": "high", "minutes": "15", "oscillate": "off", "room": "attic"], kind: "test.fan")
        #expect(intent.speed == .high)
        #expect(intent.minutes == 15)
        #expect(intent.oscillate == false)
        #expect(intent.room == "attic")
    }

    @Test func configurationWithUnknownValueOrNameIsRefused() async {
        await #expect(throws: ControlError(.invalidConfiguration, kind: "test.fan", detail: "speed: \"turbo\" is not a Fan Speed (choices: low, medium, high)")) {
            _ = try await SetFanIntent.configured(with: ["speed": "turbo"], kind: "test.fan")
        }
        await #expect(throws: ControlError(.invalidConfiguration, kind: "test.fan", detail: "\"colour\" is not a parameter of SetFanIntent (its parameters: speed, minutes, label, oscillate, room)")) {
            _ = try await SetFanIntent.configured(with: ["colour": "red"], kind: "test.fan")
        }
        await #expect(throws: ControlError(.invalidConfiguration, kind: "test.fan", detail: "minutes: \"ten\" is not a Int")) {
            _ = try await SetFanIntent.configured(with: ["minutes": "ten"], kind: "test.fan")
        }
    }

    @Test func localizedStringResourceInterpolates() {
        let name = "Porch"
        let resource: LocalizedStringResource = "Turn on \(name) Light"
        #expect(resource.key == "Turn on Porch Light")
        #expect(String(localized: resource) == "Turn on Porch Light")
        #expect(FanSpeed.medium.localizedStringResource.key == "Medium")
    }

    @Test func colorsRoundTripByName() throws {
        #expect(Color(named: "purple") == .purple)
        let custom = try #require(Color(named: "#1E90FF"))
        #expect(custom.rgb == (30, 144, 255))
        #expect(Color(red: 1, green: 0.5, blue: 0).name == "#FF8000")
        #expect(Color(named: "fuchsia") == nil)
    }
}
