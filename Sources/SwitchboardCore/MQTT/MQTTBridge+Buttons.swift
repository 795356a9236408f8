import ControlKitCore
import SwitchboardMQTT

extension MQTTBridge {
    /// One press of a push-button, for automations elsewhere: `<base>/buttons/<id>`,
    /// `{"click": "double", "event_type": "double", "performed": "fan Running"}` (`performed`
    /// absent when nothing is bound; `event_type` the Home Assistant event entity's: `single`,
    /// `double`, `long`).
    public func publishClick(_ click: String, outcome: String?, from button: String) {
        struct Click: Encodable {
            var click: String
            var eventType: String
            var performed: String?
            enum CodingKeys: String, CodingKey { case click, eventType = "event_type", performed }
        }
        let eventType = HomeAssistantDiscovery.pressTypes.first { $0.click == click }?.eventType ?? click
        connection.publish(MQTTMessage(topic: topics.button(button), text: ControlLineProtocol.encodeLine(Click(click: click, eventType: eventType, performed: outcome)), qos: 1))
    }

    /// `<base>/buttons`: the node's push-buttons and the placement each press performs, retained,
    /// for the fleet's picture; `[]` when the node has none.
    func publishButtons() {
        struct Button: Encodable {
            var id: String
            var short: String?
            var double: String?
            var long: String?
        }
        let buttons = runtime.configuration.buttons.map { Button(id: $0.id, short: $0.short, double: $0.double, long: $0.long) }
        publishRetained(topics.buttons, Array(ControlLineProtocol.encodeLine(buttons).utf8))
    }
}
