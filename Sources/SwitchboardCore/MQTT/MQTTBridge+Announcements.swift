import ControlKitCore
import SwitchboardMQTT
import SwitchboardConfiguration

extension MQTTBridge {
    /// `<base>/announcements`: what an automation's `announce` step says, not retained,
    /// `{"automation": "garage-open", "text": "Garage door open"}`.
    func publishAnnouncement(_ announcement: AutomationAnnouncement) {
        let payload = JSONValue.object([("automation", .string(announcement.automation)), ("text", .string(announcement.text))])
        connection.publish(MQTTMessage(topic: topics.announcements, text: payload.jsonLine, qos: 1))
    }
}

extension TopicContract {
    /// `<base>/announcements`: what the node's automations announce, not retained.
    public var announcements: String { base + "/announcements" }
}
