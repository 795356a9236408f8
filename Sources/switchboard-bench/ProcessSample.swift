import SwitchboardSupport

/// What /proc says of a process at one moment: CPU time (all threads, nanosecond precision from
/// `schedstat`), CPU ticks (`stat`), context switches of all threads (every wake-up is one) and
/// resident memory.
struct ProcessSample {
    var cpu: Duration
    var ticks: Int
    /// Context switches of all threads.
    var switches: Int { switchesByThread.values.reduce(0, +) }
    var switchesByThread: [String: Int] = [:]
    var threads: Int { switchesByThread.count }
    var residentBytes: Int
    /// Resident memory that is the process's own (heap, stacks), not shared library pages.
    var anonymousBytes: Int

    init(pid: Int32) {
        cpu = .zero
        for task in SystemFiles.names(in: "/proc/\(pid)/task") {
            let base = "/proc/\(pid)/task/\(task)"
            if let nanoseconds = Self.read(base + "/schedstat").split(separator: " ").first.flatMap({ Int64($0) }) {
                cpu += .nanoseconds(nanoseconds)
            }
            for line in Self.read(base + "/status").split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches") {
                switchesByThread[task, default: 0] += Int(line.split(separator: "\t").last?.trimmingWhitespace ?? "") ?? 0
            }
        }
        // Fields 14 and 15 of stat (utime, stime), counted after the command's closing parenthesis.
        let stat = Self.read("/proc/\(pid)/stat")
        let fields = stat[(stat.lastIndex(of: ")").map { stat.index(after: $0) } ?? stat.startIndex)...].split(separator: " ")
        ticks = (Int(fields.count > 12 ? fields[11] : "0") ?? 0) + (Int(fields.count > 12 ? fields[12] : "0") ?? 0)
        residentBytes = 0
        anonymousBytes = 0
        for line in Self.read("/proc/\(pid)/status").split(separator: "\n") {
            let kibibytes = (Int(line.split(separator: " ").dropLast().last ?? "") ?? 0) * 1024
            if line.hasPrefix("VmRSS:") { residentBytes = kibibytes }
            if line.hasPrefix("RssAnon:") { anonymousBytes = kibibytes }
        }
    }

    /// Wake-ups between two samples: the switches of threads alive at both, plus those of threads
    /// started meanwhile (a thread that ended takes its count with it).
    static func switches(from before: ProcessSample, to after: ProcessSample) -> Int {
        after.switchesByThread.reduce(0) { total, entry in
            total + max(0, entry.value - (before.switchesByThread[entry.key] ?? 0))
        }
    }

    static func read(_ path: String) -> String {
        (try? SystemFiles.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed().reduce(into: Substring()) { $0.append($1) }
    }
}
