/// What an automation's `announce` step said.
public struct AutomationAnnouncement: Sendable, Equatable {
    /// The automation's id.
    public var automation: String
    public var text: String

    public init(automation: String, text: String) {
        self.automation = automation
        self.text = text
    }
}
