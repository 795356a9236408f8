import ControlKit

// What the seeds' listings use but do not show: the app's timer model, its other widgets, and
// the timer configuration intent. Written here so the listings compile unchanged.

final class TimerManager: @unchecked Sendable {
    // Invariant: only the tests touch this, one at a time; it stands in for the app's own model.
    static let shared = TimerManager()
    var isRunning = false
    var runningTimers: Set<String> = []
    var fetchError: (any Error)?

    func setTimerRunning(_ running: Bool) { isRunning = running }

    func fetchRunningState() async throws -> Bool {
        if let fetchError { throw fetchError }
        return isRunning
    }

    func fetchTimerRunning(timer: ProductivityTimer) async throws -> Bool {
        if let fetchError { throw fetchError }
        return runningTimers.contains(timer.id)
    }
}

struct ProductivityTimer: AppEntity {
    static var typeDisplayRepresentation: TypeDisplayRepresentation = "Timer"
    static var defaultQuery = TimerQuery()
    static let all = [ProductivityTimer(id: "work", name: "Work"), ProductivityTimer(id: "violin", name: "Violin Practice")]

    var id: String
    var name: String
    var displayRepresentation: DisplayRepresentation { DisplayRepresentation(title: "\(name)") }
}

struct TimerQuery: EntityQuery {
    func entities(for identifiers: [String]) async throws -> [ProductivityTimer] {
        ProductivityTimer.all.filter { identifiers.contains($0.id) }
    }
    func suggestedEntities() async throws -> [ProductivityTimer] { ProductivityTimer.all }
    func defaultResult() async -> ProductivityTimer? { ProductivityTimer.all.first }
}

struct SelectTimerIntent: ControlConfigurationIntent {
    static var title: LocalizedStringResource = "Select Timer"
    @Parameter(title: "Timer") var timer: ProductivityTimer
}

struct TimerState {
    var timer: ProductivityTimer
    var isRunning: Bool
}

struct ChecklistWidget: Widget {
    var body: some WidgetConfiguration { EmptyWidgetConfiguration() }
}

struct TaskCounterWidget: Widget {
    var body: some WidgetConfiguration { EmptyWidgetConfiguration() }
}

struct MyAppWidget: Widget {
    var body: some WidgetConfiguration { EmptyWidgetConfiguration() }
}

struct MyAppControlToggle: ControlWidget {
    var body: some ControlWidgetConfiguration { Article.TimerToggle().body }
}
