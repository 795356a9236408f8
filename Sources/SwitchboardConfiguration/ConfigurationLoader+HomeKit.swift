import SwitchboardHomeKit
import SwitchboardSupport

extension ConfigurationLoader {
    /// Reads the `homekit` block: `name`, `port` (default 51826) and `setupCode` (eight digits as
    /// "XXX-XX-XXX", not one HAP forbids).
    static func readHomeKit(_ value: JSONValue, _ problems: inout [ConfigurationProblem]) -> HomeKitSettings? {
        guard var reader = ObjectReader(value, at: "homekit", problems: &problems) else { return nil }
        let name = reader.string("name", &problems)
        if let name, name.trimmingCharacters().isEmpty {
            problems.append(ConfigurationProblem(reader.child("name"), "is empty; give the name the Home app shows, such as \"Garage\", or leave it out for the node's name"))
        }
        let port = reader.int("port", in: 1...65535, default: HomeKitSettings.defaultPort, &problems) ?? HomeKitSettings.defaultPort
        let setupCode = reader.string("setupCode", &problems)
        if let setupCode {
            do throws(SetupCodeError) {
                _ = try SetupCode(setupCode)
            } catch {
                problems.append(ConfigurationProblem(reader.child("setupCode"), "\"\(setupCode)\": \(error.reason); or leave it out and one is made on first start (switchboard homekit shows it)"))
            }
        }
        reader.finish(&problems)
        return HomeKitSettings(name: name, port: port, setupCode: setupCode)
    }
}
