import ControlKit

// The article "Creating controls to perform actions across the system", its listings in order,
// each in its own namespace. Only the imports differ from Apple's code (`import AppIntents` is
// `import ControlKit`).

enum Article {
    struct TimerToggle: ControlWidget {
       static let kind: String = "com.example.MyApp.TimerToggle"

       var body: some ControlWidgetConfiguration {
           StaticControlConfiguration(
               kind: Self.kind,
               provider: Provider()
           ) { value in
               ControlWidgetToggle(
                   "Productivity Timer",
                   isOn: value,
                   action: ToggleTimerIntent(),
                   valueLabel: { isOn in
                       Label(isOn ? "Running" : "Stopped", systemImage: "timer")
                   }
               )
           }
           .displayName("Productivity Timer")
           .description("Start and stop a productivity timer.")
       }
    }

    struct ToggleTimerIntent: SetValueIntent {
       static var title: LocalizedStringResource = "Productivity Timer"

       @Parameter(title: "Timer is running")
       var value: Bool

       func perform() async throws -> some IntentResult {
           // Start / stop the timer based on `value`.
           TimerManager.shared.setTimerRunning(value)
           return .result()
       }
    }

    struct PerformActionButton: ControlWidget {
       var body: some ControlWidgetConfiguration {
           StaticControlConfiguration(
               kind: "com.example.myApp.performActionButton"
           ) {
               ControlWidgetButton(action: PerformAction()) {
                    Label("Perform Action", systemImage: "checkmark.circle")
               }
           }
           .displayName("Perform Action")
           .description("An example control that performs an action.")
       }
    }

    struct PerformAction: AppIntent {
       static let title: LocalizedStringResource = "Perform action"

       func perform() async throws -> some IntentResult {
           // Code that performs the action...
           return .result()
       }
    }

    struct LaunchAppIntent: OpenIntent {
        static var title: LocalizedStringResource = "Launch App"
        @Parameter(title: "Target")
        var target: LaunchAppEnum
    }

    enum LaunchAppEnum: String, AppEnum {
        case timer
        case history

        static var typeDisplayRepresentation = TypeDisplayRepresentation("Productivity Timer's app screens")
        static var caseDisplayRepresentations = [
            LaunchAppEnum.timer : DisplayRepresentation("Timer"),
            LaunchAppEnum.history : DisplayRepresentation("History")
        ]
    }

    struct LaunchAppButton: ControlWidget {
        var body: some ControlWidgetConfiguration {
            StaticControlConfiguration(kind: "com.example.myApp.launchApp") {
                ControlWidgetButton(action: LaunchAppIntent()) {
                    Label("Productivity", systemImage: "app")
                }
            }
        }
    }

    struct MyControlsAndWidgetsBundle: WidgetBundle {
       var body: some Widget {
           PerformActionButton()
           MyAppWidget()
           MyAppControlToggle()
       }
    }
}

extension Article.TimerToggle {
   struct Provider: ControlValueProvider {
       var previewValue: Bool {
           false
       }

       func currentValue() async throws -> Bool {
           let isRunning = TimerManager.shared.isRunning // Check if the timer is running
           return isRunning
       }
   }
}
