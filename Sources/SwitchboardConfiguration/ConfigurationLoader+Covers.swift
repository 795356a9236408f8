extension ConfigurationLoader {
    /// Reads one element of `covers`: a motor's `open` and `close` relays with `openTime` and
    /// `closeTime`, or a garage door's `pulse` with `travelTime`; `opened` and `closed` inputs.
    static func readCover(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> CoverSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem(reader.child("id"), "\"\(id)\" must be letters, digits, \"-\" or \"_\" (it names its controls and MQTT topics)"))
        }
        let name = reader.string("name", &problems) ?? id
        let open = reader.string("open", &problems)
        let close = reader.string("close", &problems)
        let pulse = reader.string("pulse", &problems)
        let travel: ClosedRange<Duration> = .milliseconds(500) ... .seconds(600)
        var drive: CoverSettings.Drive?
        if let pulse {
            if open != nil || close != nil {
                problems.append(ConfigurationProblem(reader.child("pulse"), "give either \"pulse\" (a garage door's opener) or \"open\" and \"close\" (a motor's two relays), not both"))
            }
            if let time = reader.duration("travelTime", in: travel, default: nil, &problems) {
                drive = .pulse(device: pulse, travelTime: time)
            } else if reader.value("travelTime") == nil {
                problems.append(ConfigurationProblem(reader.child("travelTime"), "is required: how long the door takes from closed to open, timed once (\"15s\")"))
            }
        } else if open != nil || close != nil {
            for (key, device) in [("open", open), ("close", close)] where device == nil {
                problems.append(ConfigurationProblem(reader.child(key), "is required with \"\(key == "open" ? "close" : "open")\": the relay that runs the motor to \(key)"))
            }
            var times: [Duration] = []
            for key in ["openTime", "closeTime"] {
                if let time = reader.duration(key, in: travel, default: nil, &problems) {
                    times.append(time)
                } else if reader.value(key) == nil {
                    problems.append(ConfigurationProblem(reader.child(key), "is required: how long a full travel takes, timed once with a stopwatch (\"20s\")"))
                }
            }
            if let open, let close, times.count == 2 {
                drive = .motor(open: open, close: close, openTime: times[0], closeTime: times[1])
            }
        } else {
            problems.append(ConfigurationProblem(path, "give \"open\" and \"close\" (a blind's two relays, with \"openTime\" and \"closeTime\") or \"pulse\" (a garage door's opener, with \"travelTime\")"))
        }
        let opened = reader.string("opened", &problems)
        let closed = reader.string("closed", &problems)
        if pulse != nil, opened == nil, closed == nil {
            problems.append(ConfigurationProblem(reader.child("closed"), "is required for a garage door (or \"opened\"): a reed switch is how its state is known"))
        }
        let deviceClass = reader.string("deviceClass", &problems) ?? (pulse != nil ? "garage" : "blind")
        if let problem = HomeAssistantDeviceClasses.problem(deviceClass, for: .cover) {
            problems.append(ConfigurationProblem(reader.child("deviceClass"), problem))
        }
        let authentication = reader.bool("requiresAuthentication", default: pulse != nil, &problems)
        reader.finish(&problems)
        guard let drive else { return nil }
        return CoverSettings(id: id, name: name, drive: drive, opened: opened, closed: closed, deviceClass: deviceClass, requiresAuthentication: authentication)
    }

    /// Each cover drives outputs of the right kind, a motor's two relays in one interlock (so
    /// that they are never on together), reads inputs, shares no device with another cover, and
    /// brings control kinds no control has.
    static func validateCovers(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        var owner: [String: String] = [:]
        var ids: [String: Int] = [:]
        for cover in configuration.covers {
            let path = "covers[\(cover.position)]"
            if let earlier = ids[cover.id] {
                problems.append(ConfigurationProblem("\(path).id", "\"\(cover.id)\" is used by covers[\(earlier)] too; each id must be unique"))
            }
            ids[cover.id] = cover.position
            if configuration.device(cover.id) != nil {
                problems.append(ConfigurationProblem("\(path).id", "\"\(cover.id)\" is a device's id too; give the cover an id of its own"))
            }
            for kind in [cover.toggleKind, cover.stopKind] where configuration.control(kind) != nil {
                problems.append(ConfigurationProblem("\(path).id", "\"\(cover.id)\" brings the control \"\(kind)\", which controls has already; rename the cover or that control"))
            }
            func check(_ key: String, _ id: String, _ kind: DeviceSettings.Kind, _ what: String) {
                guard let device = configuration.device(id) else {
                    problems.append(ConfigurationProblem("\(path).\(key)", "\"\(id)\" is not a device; add a \(kind.rawValue) device for \(what)"))
                    return
                }
                if device.kind != kind {
                    problems.append(ConfigurationProblem("\(path).\(key)", "\"\(id)\" is a\(device.kind == .input ? "n" : "") \(device.kind.rawValue) device; \(what) is a \(kind.rawValue) device"))
                }
                if let other = owner[id] {
                    problems.append(ConfigurationProblem("\(path).\(key)", "\"\(id)\" belongs to cover \"\(other)\" already; a device serves one cover"))
                }
                owner[id] = cover.id
            }
            switch cover.drive {
            case .motor(let open, let close, _, _):
                check("open", open, .relay, "the motor's opening relay")
                check("close", close, .relay, "the motor's closing relay")
                if open == close {
                    problems.append(ConfigurationProblem("\(path).close", "\"\(close)\" is the opening relay too; a motor needs a relay for each direction"))
                } else if configuration.interlock(of: open) == nil || configuration.interlock(of: open)?.id != configuration.interlock(of: close)?.id {
                    problems.append(ConfigurationProblem(
                        "\(path).open",
                        "\"\(open)\" and \"\(close)\" must be in one interlock, so that they are never on together: add {\"id\": \"\(cover.id)\", \"devices\": [\"\(open)\", \"\(close)\"], \"deadTime\": \"500ms\"} to \"interlocks\""
                    ))
                }
            case .pulse(let device, _):
                check("pulse", device, .pulse, "a garage door's opener")
            }
            if let opened = cover.opened { check("opened", opened, .input, "the contact at the open end") }
            if let closed = cover.closed { check("closed", closed, .input, "the contact at the closed end") }
            if cover.opened != nil, cover.opened == cover.closed {
                problems.append(ConfigurationProblem("\(path).closed", "\"\(cover.closed ?? "")\" is the \"opened\" contact too; give each end its own input"))
            }
        }
    }
}
