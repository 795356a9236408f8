import SwitchboardMQTT

extension MQTTBridge {
    /// Asks every device of another system that names a `stateRequest` for its state: at
    /// connect and reconnect, after the subscriptions to their state topics, so their controls
    /// are current at once instead of stale until the device next changes.
    func requestStates() {
        for device in runtime.configuration.devices {
            guard let request = device.mqtt?.stateRequest else { continue }
            connection.publish(MQTTMessage(topic: request.topic, text: request.payload, qos: 0))
        }
    }
}
