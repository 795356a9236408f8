extension ConfigurationLoader {
    /// Reads one element of `buttons`.
    static func readButton(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> ButtonSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        var gpio: GPIOSettings?
        if let value = reader.value("gpio") {
            gpio = readGPIO(value, at: reader.child("gpio"), output: false, &problems)
        } else {
            problems.append(ConfigurationProblem(reader.child("gpio"), "is required (an object with \"chip\" and \"line\")"))
        }
        let short = reader.string("short", &problems)
        let double = reader.string("double", &problems)
        let long = reader.string("long", &problems)
        let longTime = reader.duration("longTime", in: .milliseconds(100) ... .seconds(30), default: .milliseconds(800), &problems) ?? .milliseconds(800)
        // A double press costs a short press its wait: only buttons with one bound, or a window
        // given (double presses for Home Assistant or HomeKit), wait for it.
        let windowGiven = reader.value("doubleWindow") != nil
        let window = reader.duration("doubleWindow", in: .milliseconds(50) ... .seconds(2), default: .milliseconds(300), &problems) ?? .milliseconds(300)
        reader.finish(&problems)
        guard let gpio else { return nil }
        return ButtonSettings(id: id, gpio: gpio, short: short, double: double, long: long, longTime: longTime,
                              doubleWindow: double == nil && !windowGiven ? .zero : window)
    }

    /// Each button's presses perform placements devices.json places.
    static func validateButtons(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        let placements = configuration.placements.map(\.id)
        for button in configuration.buttons {
            for (key, placement) in [("short", button.short), ("double", button.double), ("long", button.long)] {
                guard let placement, !placements.contains(placement) else { continue }
                problems.append(ConfigurationProblem("buttons[\(button.position)].\(key)", "\"\(placement)\" is not a placement; placements: \(placements.joined(separator: ", "))"))
            }
        }
    }
}
