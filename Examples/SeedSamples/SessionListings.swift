import ControlKit

// The WWDC24 session's listings, in order, each in its own namespace. Only the imports differ
// from Apple's code. `ToggleTimerIntent(timer:)` is the session's own use in 13:40.

enum Listing0313 {
    struct ProductivityExtensionBundle: WidgetBundle {
        var body: some Widget {
            ChecklistWidget()
            TaskCounterWidget()
            Listing0329.TimerToggle()
        }
    }
}

enum Listing0329 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            StaticControlConfiguration( kind: "com.apple.Productivity.TimerToggle" ) {
                ControlWidgetToggle( "Work Timer", isOn: TimerManager.shared.isRunning, action: ToggleTimerIntent() ) { _ in
                    Image(systemName: "hourglass.bottomhalf.filled")
                }
            }
        }
    }
}

enum Listing0441 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            StaticControlConfiguration( kind: "com.apple.Productivity.TimerToggle" ) {
                 ControlWidgetToggle( "Work Timer", isOn: TimerManager.shared.isRunning, action: ToggleTimerIntent() ) { isOn in
                     Image(systemName: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                 }
             }
         }
    }
}

enum Listing0521 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
             StaticControlConfiguration( kind: "com.apple.Productivity.TimerToggle" ) {
                 ControlWidgetToggle( "Work Timer", isOn: TimerManager.shared.isRunning, action: ToggleTimerIntent() ) { isOn in
                     Label(isOn ? "Running" : "Stopped", systemImage: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                 }
                 .tint(.purple)
             }
         }
    }
}

struct ToggleTimerIntent: SetValueIntent, LiveActivityIntent {
    static let title: LocalizedStringResource = "Productivity Timer"
    @Parameter(title: "Running") var value: Bool
    @Parameter(title: "Timer") var timer: ProductivityTimer?

    init() {}
    init(timer: ProductivityTimer) { self.timer = timer }

    // The timer’s running state
    func perform() throws -> some IntentResult {
        if let timer {
            if value { TimerManager.shared.runningTimers.insert(timer.id) } else { TimerManager.shared.runningTimers.remove(timer.id) }
        } else {
            TimerManager.shared.setTimerRunning(value)
        }
        return .result()
    }
}

enum Listing0854 {
    static func timerManager(_ manager: TimerManager, timerDidChange timer: ProductivityTimer) {
        ControlCenter.shared.reloadControls( ofKind: "com.apple.Productivity.TimerToggle" )
    }
}

struct TimerValueProvider: ControlValueProvider {
    func currentValue() async throws -> Bool {
        try await TimerManager.shared.fetchRunningState()
    }

    let previewValue: Bool = false
}

enum Listing1100 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            StaticControlConfiguration( kind: "com.apple.Productivity.TimerToggle", provider: TimerValueProvider() ) { isRunning in
                ControlWidgetToggle( "Work Timer", isOn: isRunning, action: ToggleTimerIntent() ) { isOn in
                    Label(isOn ? "Running" : "Stopped", systemImage: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                }
                .tint(.purple)
            }
        }
    }
}

struct ConfigurableTimerValueProvider: AppIntentControlValueProvider {
    func currentValue(configuration: SelectTimerIntent) async throws -> TimerState {
        let timer = configuration.timer
        let isRunning = try await TimerManager.shared.fetchTimerRunning(timer: timer)
        return TimerState(timer: timer, isRunning: isRunning)
    }
    func previewValue(configuration: SelectTimerIntent) -> TimerState {
        return TimerState(timer: configuration.timer, isRunning: false)
    }
}

enum Listing1340 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            AppIntentControlConfiguration( kind: "com.apple.Productivity.TimerToggle", provider: ConfigurableTimerValueProvider() ) { timerState in
                ControlWidgetToggle( timerState.timer.name, isOn: timerState.isRunning, action: ToggleTimerIntent(timer: timerState.timer) ) { isOn in
                    Label(isOn ? "Running" : "Stopped", systemImage: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                }
                .tint(.purple)
            }
        }
    }
}

enum Listing1426 {
    struct SomeControl: ControlWidget {
        var body: some ControlWidgetConfiguration {
            AppIntentControlConfiguration( kind: "com.apple.Productivity.SomeControl", provider: ConfigurableTimerValueProvider() ) { timerState in
                ControlWidgetToggle( timerState.timer.name, isOn: timerState.isRunning, action: ToggleTimerIntent(timer: timerState.timer) ) { isOn in
                    Image(systemName: "hourglass")
                }
            }
                .promptsForUserConfiguration()
        }
    }
}

enum Listing1542 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            AppIntentControlConfiguration( kind: "com.apple.Productivity.TimerToggle", provider: ConfigurableTimerValueProvider() ) { timerState in
                ControlWidgetToggle( timerState.timer.name, isOn: timerState.isRunning, action: ToggleTimerIntent(timer: timerState.timer) ) { isOn in
                    Label(isOn ? "Running" : "Stopped", systemImage: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                        .controlWidgetActionHint(isOn ? "Start" : "Stop")
                }
                .tint(.purple)
            }
        }
    }
}

enum Listing1656 {
    struct TimerToggle: ControlWidget {
        var body: some ControlWidgetConfiguration {
            AppIntentControlConfiguration( kind: "com.apple.Productivity.TimerToggle", provider: ConfigurableTimerValueProvider() ) { timerState in
                ControlWidgetToggle( timerState.timer.name, isOn: timerState.isRunning, action: ToggleTimerIntent(timer: timerState.timer) ) { isOn in
                    Label(isOn ? "Running" : "Stopped", systemImage: isOn ? "hourglass" : "hourglass.bottomhalf.filled")
                        .controlWidgetActionHint(isOn ? "Start" : "Stop")
                }
                .tint(.purple)
            }
            .displayName("Productivity Timer")
            .description("Start and stop a productivity timer.")
        }
    }
}
