#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension ConfigurationLoader {
    /// Reads one element of `extensions`.
    static func readExtension(_ value: JSONValue, _ path: String, _ problems: inout [ConfigurationProblem]) -> ExtensionSettings? {
        guard var reader = ObjectReader(value, at: path, problems: &problems) else { return nil }
        let id = reader.string("id", required: true, &problems) ?? ""
        if !id.isEmpty, !isIdentifier(id) {
            problems.append(ConfigurationProblem("\(path).id", "\"\(id)\" must be letters, digits, \"-\" or \"_\""))
        }
        let executable = reader.string("executable", required: true, &problems) ?? ""
        let arguments = reader.strings("arguments", &problems)
        let user = reader.string("user", &problems)
        let devices = reader.strings("devices", &problems)
        let timeout = reader.duration("timeout", default: .seconds(10), &problems) ?? .seconds(10)
        reader.finish(&problems)
        return ExtensionSettings(id: id, executable: executable, arguments: arguments, user: user, devices: devices, timeout: timeout)
    }

    /// Makes each extension's executable path absolute (from devices.json's folder) and checks
    /// that it can be run.
    static func resolveExecutables(_ extensions: [ExtensionSettings], relativeTo file: String, _ problems: inout [ConfigurationProblem]) -> [ExtensionSettings] {
        let folder = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        return extensions.map { settings in
            var settings = settings
            guard !settings.executable.isEmpty else { return settings }
            if !settings.executable.hasPrefix("/") {
                settings.executable = (folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder) + "/" + settings.executable
            }
            if access(settings.executable, X_OK) != 0 {
                let path = "extensions[\(settings.position)].executable"
                let reason = FileManager.default.fileExists(atPath: settings.executable) ? "is not executable" : "does not exist"
                problems.append(ConfigurationProblem(path, "\(settings.executable) \(reason); build the extension (swift build --product …) or give the path of its executable"))
            }
            return settings
        }
    }

    /// Extension ids are unique and name devices that exist.
    static func validateExtensions(_ configuration: SwitchboardConfiguration, _ problems: inout [ConfigurationProblem]) {
        var seen = Set<String>()
        for settings in configuration.extensions {
            let path = "extensions[\(settings.position)]"
            if !seen.insert(settings.id).inserted {
                problems.append(ConfigurationProblem("\(path).id", "\"\(settings.id)\" is used twice; every extension needs its own id"))
            }
            for device in settings.devices where configuration.device(device) == nil {
                problems.append(ConfigurationProblem("\(path).devices", "\"\(device)\" is not a device; devices: \(configuration.devices.map(\.id).joined(separator: ", "))"))
            }
        }
    }
}
