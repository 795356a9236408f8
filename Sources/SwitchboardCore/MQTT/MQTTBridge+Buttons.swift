import ControlKitCore
import SwitchboardMQTT

extension MQTTBridge {
    /// One press of a push-button, for automations elsewhere: `<base>/buttons/<id>`,
    /// `{"click": "double", "performed": "fan Running"}` (`performed` absent when nothing is bound).
    public func publishClick(_ click: String, outcome: String?, from button: String) {
        struct Click: Encodable {
            var click: String
            var performed: String?
        }
        connection.publish(MQTTMessage(topic: topics.button(button), text: ControlLineProtocol.encodeLine(Click(click: click, performed: outcome)), qos: 1))
    }
}
