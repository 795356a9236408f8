extension ConfigurationLoader {
    /// A device of another system's `extraStateTopics`: `[{"topic": "tele/plug1/STATE",
    /// "valueKey": "POWER"}]`, each topic without wildcards, not its `stateTopic` and given once.
    static func readExtraStateTopics(
        _ reader: inout ObjectReader, stateTopic: String, _ problems: inout [ConfigurationProblem]
    ) -> [MQTTStateTopic] {
        var topics: [MQTTStateTopic] = []
        for (index, element) in reader.array("extraStateTopics", &problems).enumerated() {
            guard var entry = ObjectReader(element, at: "\(reader.child("extraStateTopics"))[\(index)]", problems: &problems) else { continue }
            let topic = entry.string("topic", required: true, &problems) ?? ""
            let valueKey = entry.string("valueKey", &problems)
            entry.finish(&problems)
            if topic.contains("+") || topic.contains("#") {
                problems.append(ConfigurationProblem(entry.child("topic"), "\"\(topic)\" must not contain wildcards"))
            } else if topic == stateTopic {
                problems.append(ConfigurationProblem(entry.child("topic"), "\"\(topic)\" is already the device's stateTopic; give another topic on which it says its state"))
            } else if topics.contains(where: { $0.topic == topic }) {
                problems.append(ConfigurationProblem(entry.child("topic"), "\"\(topic)\" is given twice; give each topic once"))
            } else if !topic.isEmpty {
                topics.append(MQTTStateTopic(topic: topic, valueKey: valueKey))
            }
        }
        return topics
    }
}
