/// Home Assistant icons (Material Design Icons, `mdi:`) for the SF Symbols that controls show.
///
/// A control's entity takes the icon of the symbol it shows, without its `fill` variant: Control
/// Center's `lightbulb` (off) and `lightbulb.fill` (on) are both `mdi:lightbulb`, which Home
/// Assistant draws in the state's colour itself, so a change of value never re-announces the
/// entity; a symbol that changes shape with the state (`door.garage.closed` → `door.garage.open`)
/// changes the icon. A symbol not in the table is looked up again without its last part
/// (`sprinkler.and.droplets` → `sprinkler.and` → `sprinkler`); a symbol with no match at all gives
/// no icon, and Home Assistant uses its own for the entity's kind. docs/home-assistant.md lists the table.
public enum HomeAssistantIcons {
    /// The icon for an SF Symbol name, or nil.
    public static func icon(forSymbol symbol: String) -> String? {
        var name = Substring(symbol.split(separator: ".").filter { $0 != "fill" }.joined(separator: "."))
        while !name.isEmpty {
            if let icon = table[String(name)] { return icon }
            guard let dot = name.lastIndex(of: ".") else { return nil }
            name = name[..<dot]
        }
        return nil
    }

    /// SF Symbol name → `mdi:` icon; the symbols of Apple's and Switchboard's sample controls and
    /// the home devices people switch.
    public static let table: [String: String] = [
        // Lights
        "lightbulb": "mdi:lightbulb",
        "lightbulb.slash": "mdi:lightbulb-off",
        "lightbulb.2": "mdi:lightbulb-group",
        "lamp.desk": "mdi:desk-lamp",
        "lamp.floor": "mdi:floor-lamp",
        "lamp.table": "mdi:lamp",
        "lamp.ceiling": "mdi:ceiling-light",
        "light.recessed": "mdi:light-recessed",
        "light.strip.2": "mdi:led-strip-variant",
        "light.panel": "mdi:wall-sconce-flat",
        "sun.max": "mdi:white-balance-sunny",
        "moon": "mdi:weather-night",
        "flashlight.on": "mdi:flashlight",
        "flashlight.off": "mdi:flashlight-off",
        // Air and heat
        "fan": "mdi:fan",
        "fan.slash": "mdi:fan-off",
        "fan.ceiling": "mdi:ceiling-fan",
        "air.purifier": "mdi:air-purifier",
        "air.conditioner.horizontal": "mdi:air-conditioner",
        "heater.vertical": "mdi:radiator",
        "humidifier": "mdi:air-humidifier",
        "dehumidifier": "mdi:air-humidifier-off",
        "thermometer": "mdi:thermometer",
        "thermometer.snowflake": "mdi:snowflake-thermometer",
        "snowflake": "mdi:snowflake",
        "flame": "mdi:fire",
        "wind": "mdi:weather-windy",
        // Doors, locks, windows
        "door.garage.closed": "mdi:garage",
        "door.garage.open": "mdi:garage-open",
        "door.garage.double.bay.closed": "mdi:garage-variant",
        "door.garage.double.bay.open": "mdi:garage-open-variant",
        "door.left.hand.closed": "mdi:door-closed",
        "door.left.hand.open": "mdi:door-open",
        "door.right.hand.closed": "mdi:door-closed",
        "door.right.hand.open": "mdi:door-open",
        "door.sliding.left.hand.closed": "mdi:door-sliding",
        "door.sliding.left.hand.open": "mdi:door-sliding-open",
        "lock": "mdi:lock",
        "lock.open": "mdi:lock-open-variant",
        "key": "mdi:key",
        "blinds.vertical.closed": "mdi:blinds",
        "blinds.vertical.open": "mdi:blinds-open",
        "blinds.horizontal.closed": "mdi:blinds-horizontal-closed",
        "blinds.horizontal.open": "mdi:blinds-horizontal",
        "window.shade.closed": "mdi:roller-shade-closed",
        "window.shade.open": "mdi:roller-shade",
        "window.vertical.closed": "mdi:window-closed-variant",
        "window.vertical.open": "mdi:window-open-variant",
        "web.camera": "mdi:webcam",
        "video": "mdi:video",
        "camera": "mdi:camera",
        "bell": "mdi:bell",
        "bell.slash": "mdi:bell-off",
        "alarm": "mdi:alarm",
        "shield": "mdi:shield-home",
        "sensor": "mdi:motion-sensor",
        "figure.walk": "mdi:walk",
        // Power
        "power": "mdi:power",
        "powerplug": "mdi:power-plug",
        "poweroutlet.type.b": "mdi:power-socket-us",
        "poweroutlet.type.f": "mdi:power-socket-de",
        "poweroutlet.type.g": "mdi:power-socket-uk",
        "poweroutlet.type.j": "mdi:power-socket-ch",
        "poweroutlet.type.k": "mdi:power-socket-eu",
        "poweroutlet.strip": "mdi:power-socket",
        "bolt": "mdi:flash",
        "bolt.slash": "mdi:flash-off",
        "battery.100": "mdi:battery",
        "battery.25": "mdi:battery-20",
        "battery.0": "mdi:battery-outline",
        "ev.charger": "mdi:ev-station",
        "car": "mdi:car",
        // Water and garden
        "drop": "mdi:water",
        "spigot": "mdi:water-pump",
        "sprinkler": "mdi:sprinkler",
        "sprinkler.and.droplets": "mdi:sprinkler-variant",
        "shower": "mdi:shower",
        "bathtub": "mdi:bathtub",
        "leaf": "mdi:leaf",
        "tree": "mdi:tree",
        "pawprint": "mdi:paw",
        "washer": "mdi:washing-machine",
        "dishwasher": "mdi:dishwasher",
        "oven": "mdi:stove",
        "refrigerator": "mdi:fridge",
        // Media
        "tv": "mdi:television",
        "hifispeaker": "mdi:speaker",
        "speaker": "mdi:speaker",
        "speaker.wave.2": "mdi:volume-high",
        "speaker.slash": "mdi:volume-off",
        "music.note": "mdi:music-note",
        "play": "mdi:play",
        "pause": "mdi:pause",
        "stop": "mdi:stop",
        "wifi": "mdi:wifi",
        "wifi.slash": "mdi:wifi-off",
        "antenna.radiowaves.left.and.right": "mdi:access-point",
        // Time and general
        "timer": "mdi:timer-outline",
        "hourglass": "mdi:timer-sand",
        "clock": "mdi:clock-outline",
        "calendar": "mdi:calendar",
        "house": "mdi:home",
        "checkmark.circle": "mdi:check-circle",
        "xmark.circle": "mdi:close-circle",
        "exclamationmark.triangle": "mdi:alert",
        "star": "mdi:star",
        "heart": "mdi:heart",
        "hand.tap": "mdi:gesture-tap",
        "gearshape": "mdi:cog",
        "number": "mdi:numeric",
        "plus": "mdi:plus",
        "minus": "mdi:minus",
        "arrow.clockwise": "mdi:refresh",
        "app": "mdi:application",
    ]
}
