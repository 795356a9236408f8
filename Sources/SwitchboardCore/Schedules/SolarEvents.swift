#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardConfiguration

/// Sunrise and sunset on the node, from NOAA's solar equations (the Astronomical Algorithms
/// approximations of NOAA's solar calculator): the sun's declination and the equation of time
/// for the day, and the hour angle at which the sun's upper limb meets the horizon, refraction
/// included (zenith 90.833°). Good to about a minute away from the poles.
public enum SolarEvents {
    /// Which crossing of the horizon.
    public enum Event: String, Sendable, Equatable {
        case sunrise, sunset
    }

    /// Why a day has no sunrise or sunset at a place.
    public enum NoEvent: Error, Sendable, Equatable {
        /// The sun stays below the horizon all day.
        case polarNight
        /// The sun stays above the horizon all day.
        case midnightSun
    }

    /// The instant of `event` on the civil day `day` (its UTC calendar date) at `latitude`/`longitude`
    /// (degrees, north and east positive), or why there is none.
    public static func instant(
        of event: Event, on day: CivilDay, latitude: Double, longitude: Double
    ) -> Result<Date, NoEvent> {
        // First pass at the day's solar noon, second pass at the estimated event itself: the
        // sun's declination moves by up to 0.4° a day, a few seconds of sunset time.
        let minute = { (at: Double) in
            minutesAfterMidnightUTC(of: event, day: day, atMinute: at, latitude: latitude, longitude: longitude)
        }
        return minute(720 - 4 * longitude).flatMap(minute).map {
            Date(timeIntervalSince1970: Double(day.daysSince1970) * 86_400 + $0 * 60)
        }
    }

    /// NOAA's sunrise/sunset for the Julian century at `minute` (UTC) of `day`, in minutes after
    /// that day's 00:00 UTC.
    static func minutesAfterMidnightUTC(
        of event: Event, day: CivilDay, atMinute minute: Double, latitude: Double, longitude: Double
    ) -> Result<Double, NoEvent> {
        let julianDay = Double(day.daysSince1970) + 2_440_587.5 + minute / 1440
        let t = (julianDay - 2_451_545) / 36_525
        let meanLongitude = (280.46646 + t * (36_000.76983 + t * 0.000_303_2)).truncatingRemainder(dividingBy: 360)
        let meanAnomaly = 357.52911 + t * (35_999.05029 - 0.000_153_7 * t)
        let eccentricity = 0.016_708_634 - t * (0.000_042_037 + 0.000_000_126_7 * t)
        let centre = sin(radians(meanAnomaly)) * (1.914602 - t * (0.004817 + 0.000014 * t))
            + sin(radians(2 * meanAnomaly)) * (0.019993 - 0.000101 * t)
            + sin(radians(3 * meanAnomaly)) * 0.000289
        let trueLongitude = meanLongitude + centre
        let omega = 125.04 - 1934.136 * t
        let apparentLongitude = trueLongitude - 0.00569 - 0.00478 * sin(radians(omega))
        let meanObliquity = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60) / 60
        let obliquity = meanObliquity + 0.00256 * cos(radians(omega))
        let declination = asin(sin(radians(obliquity)) * sin(radians(apparentLongitude)))
        let y = pow(tan(radians(obliquity / 2)), 2)
        let l0 = radians(meanLongitude), m = radians(meanAnomaly)
        let equationOfTime = 4 * degrees(
            y * sin(2 * l0) - 2 * eccentricity * sin(m) + 4 * eccentricity * y * sin(m) * cos(2 * l0)
                - 0.5 * y * y * sin(4 * l0) - 1.25 * eccentricity * eccentricity * sin(2 * m))
        let phi = radians(latitude)
        let cosHourAngle = cos(radians(90.833)) / (cos(phi) * cos(declination)) - tan(phi) * tan(declination)
        if cosHourAngle > 1 { return .failure(.polarNight) }
        if cosHourAngle < -1 { return .failure(.midnightSun) }
        let hourAngle = degrees(acos(cosHourAngle))
        let solarNoon = 720 - 4 * longitude - equationOfTime
        return .success(event == .sunrise ? solarNoon - 4 * hourAngle : solarNoon + 4 * hourAngle)
    }

    private static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    private static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}
