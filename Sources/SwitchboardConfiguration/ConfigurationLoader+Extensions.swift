#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

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

    /// Makes each extension's executable path absolute: a bare name (`home-controls`) is looked
    /// for beside this program (switchboardd, or `switchboard check`) and then in
    /// `../libexec/switchboard` from it, where `deploy/install.sh` puts extensions; a path with a
    /// `/` is taken from devices.json's folder. An executable that is missing is not a problem of
    /// the file: the extension then fails to start, and says so, without stopping the daemon.
    static func resolveExecutables(_ extensions: [ExtensionSettings], relativeTo file: String) -> [ExtensionSettings] {
        let folder = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        let absoluteFolder = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        return extensions.map { settings in
            var settings = settings
            if settings.executable.hasPrefix("/") || settings.executable.isEmpty { return settings }
            if settings.executable.contains("/") {
                settings.executable = absoluteFolder + "/" + settings.executable
            } else {
                let candidates = searchFolders.map { $0 + "/" + settings.executable }
                settings.executable = candidates.first { SystemCall.isExecutable($0) } ?? candidates[0]
            }
            return settings
        }
    }

    /// Where a bare extension name is looked for: this program's folder, then `../libexec/switchboard`.
    static var searchFolders: [String] {
        guard let program = try? SystemCall.readLink("/proc/self/exe"), !program.isEmpty else { return ["/usr/local/libexec/switchboard"] }
        let own = String(program[..<(program.lastIndex(of: "/") ?? program.startIndex)])
        let prefix = String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)])
        return [own, prefix + "/libexec/switchboard"]
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
