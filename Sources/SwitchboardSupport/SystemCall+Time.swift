#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// How far the system's local time is ahead of UTC at an instant, in seconds (`localtime_r`'s
    /// `tm_gmtoff`, after `tzset`): the time zone of `TZ`, else `/etc/localtime`, with its
    /// daylight-saving rules, as the C library reads them (no ICU needed).
    public static func localOffsetFromUTC(atSecondsSince1970 seconds: Int) -> Int {
        tzset()
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
