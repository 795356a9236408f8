extension ConfigurationLoader {
    /// An mqtt device's `availabilityTopic`, `payloadAvailable` and `payloadNotAvailable`, each
    /// defaulted from its system's convention (``MQTTAvailability/convention(stateTopic:commandTopic:)``);
    /// an empty `availabilityTopic` turns availability off.
    static func readAvailability(
        _ reader: inout ObjectReader, stateTopic: String, commandTopic: String, _ problems: inout [ConfigurationProblem]
    ) -> MQTTAvailability? {
        let convention = MQTTAvailability.convention(stateTopic: stateTopic, commandTopic: commandTopic)
        let topic = reader.string("availabilityTopic", &problems)
        let available = reader.string("payloadAvailable", &problems)
        let notAvailable = reader.string("payloadNotAvailable", &problems)
        if let topic, topic.contains("+") || topic.contains("#") {
            problems.append(ConfigurationProblem(reader.child("availabilityTopic"), "\"\(topic)\" must not contain wildcards: it is one device's topic"))
            return nil
        }
        if topic == "" {
            for (key, value) in [("payloadAvailable", available), ("payloadNotAvailable", notAvailable)] where value != nil {
                problems.append(ConfigurationProblem(reader.child(key), "has no use without an availability topic (\"availabilityTopic\" is empty)"))
            }
            return nil
        }
        guard let topic = topic ?? convention?.topic else {
            for (key, value) in [("payloadAvailable", available), ("payloadNotAvailable", notAvailable)] where value != nil {
                problems.append(ConfigurationProblem(reader.child(key), "needs \"availabilityTopic\": the topics are of no system whose availability topic is known"))
            }
            return nil
        }
        let availability = MQTTAvailability(
            topic: topic,
            payloadAvailable: available ?? convention?.payloadAvailable ?? "online",
            payloadNotAvailable: notAvailable ?? convention?.payloadNotAvailable ?? "offline"
        )
        if availability.payloadAvailable == availability.payloadNotAvailable {
            problems.append(ConfigurationProblem(reader.child("payloadNotAvailable"), "is the same as payloadAvailable (\"\(availability.payloadAvailable)\"): give two different payloads"))
            return nil
        }
        if availability.payloadAvailable.isEmpty || availability.payloadNotAvailable.isEmpty {
            problems.append(ConfigurationProblem(reader.child(availability.payloadAvailable.isEmpty ? "payloadAvailable" : "payloadNotAvailable"), "must not be empty"))
            return nil
        }
        return availability
    }
}
