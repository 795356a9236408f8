/// A parameter of a configurable control's configuration intent, as the runtime and surfaces see it.
public struct ControlParameter: Sendable, Hashable, Codable {
    /// The property's name in the intent (`light` for `@Parameter var light`): the configuration key.
    public var name: String
    /// What people call it.
    public var title: String
    /// The type's name (an entity's type display name, or `Bool`, `Int`, …).
    public var type: String
    /// The choices, where the type has a fixed or suggested set.
    public var options: [ParameterOption]

    public init(name: String, title: String, type: String, options: [ParameterOption]) {
        self.name = name
        self.title = title
        self.type = type
        self.options = options
    }

    /// The parameter a find searches (the named one, or the first whose type can be searched)
    /// with its choices narrowed to what the find selects.
    static func find<Intent: AppIntent>(_ find: EntityFind, in intent: Intent, kind: String) async throws -> ControlParameter {
        let parameters = reflectParameters(of: intent)
        let candidates = find.parameter.map { name in parameters.filter { $0.name == name } } ?? parameters
        if let name = find.parameter, candidates.isEmpty {
            throw ControlError(.wrongRequest, kind: kind, detail: "\"\(name)\" is not a parameter (parameters: \(parameters.map(\.name).joined(separator: ", ")))")
        }
        for (name, parameter) in candidates {
            let found: [ParameterOption]?
            do {
                found = try await parameter.find(find)
            } catch let error as EntityFindError {
                throw ControlError(.wrongRequest, kind: kind, detail: error.description)
            }
            if let found {
                return ControlParameter(name: name, title: parameter.titleText, type: parameter.typeName, options: found)
            }
        }
        throw ControlError.notSearchable(kind: kind)
    }

    /// The parameters an intent declares with `@Parameter`, in declaration order.
    static func parameters<Intent: AppIntent>(of intent: Intent) async -> [ControlParameter] {
        var result: [ControlParameter] = []
        for (name, parameter) in reflectParameters(of: intent) {
            let options = (try? await parameter.options()) ?? []
            result.append(ControlParameter(name: name, title: parameter.titleText, type: parameter.typeName, options: options))
        }
        return result
    }
}

/// The `@Parameter` properties of an intent, by name.
func reflectParameters<Intent: AppIntent>(of intent: Intent) -> [(name: String, parameter: any AnyIntentParameter)] {
    Mirror(reflecting: intent).children.compactMap { child in
        guard let label = child.label, let parameter = child.value as? any AnyIntentParameter else { return nil }
        return (label.hasPrefix("_") ? String(label.dropFirst()) : label, parameter)
    }
}

extension AppIntent {
    /// A new intent with its parameters set from a configuration: each named parameter from its
    /// string, each other one to its type's default.
    ///
    /// - Throws: ``ControlError`` `.needsConfiguration` when a parameter has no value and no default,
    ///   `.invalidConfiguration` for an unknown name or a string that stands for no value.
    static func configured(with configuration: [String: String], kind: String) async throws -> Self {
        let intent = Self()
        let parameters = reflectParameters(of: intent)
        for name in configuration.keys.sorted() where !parameters.contains(where: { $0.name == name }) {
            throw ControlError(.invalidConfiguration, kind: kind, detail: "\"\(name)\" is not a parameter of \(Self.self) (its parameters: \(parameters.map(\.name).joined(separator: ", ")))")
        }
        for (name, parameter) in parameters {
            if let string = configuration[name] {
                guard try await parameter.assign(fromString: string) else {
                    let choices = ((try? await parameter.options()) ?? []).map(\.id)
                    let hint = choices.isEmpty ? "" : " (choices: \(choices.joined(separator: ", ")))"
                    throw ControlError(.invalidConfiguration, kind: kind, detail: "\(name): \"\(string)\" is not a \(parameter.typeName)\(hint)")
                }
            } else if !(await parameter.assignDefault()) {
                throw ControlError(.needsConfiguration, kind: kind, detail: "choose a \(parameter.titleText.lowercased())")
            }
        }
        return intent
    }
}
