import Foundation

/// Formats and parses the ISO/IEC 8601 date-times of EXT-X-PROGRAM-DATE-TIME (RFC 8216 §4.3.2.6),
/// always in UTC with millisecond precision: `2026-11-21T23:40:00.000Z`.
///
/// Done with integer calendar arithmetic rather than a DateFormatter: it runs once per segment
/// on the publish path, needs no locale, and is trivially thread-safe.
public enum ProgramDateTime {
    /// Dates outside years 0000 to 9999 (only a computation gone wrong makes one: a parsed
    /// date-time has four digits of year) are written as the nearest of those, never a trap.
    public static func format(_ date: Date) -> String {
        let stamp = (date.timeIntervalSince1970 * 1000).rounded(.down)
        let totalMillis = stamp.isNaN ? 0 : Int64(min(max(stamp, firstRepresentable), lastRepresentable))
        let millis = Int(((totalMillis % 1000) + 1000) % 1000)
        let totalSeconds = (totalMillis - Int64(millis)) / 1000
        let days = Int(floorDiv(totalSeconds, 86_400))
        let secondsOfDay = Int(totalSeconds - Int64(days) * 86_400)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))"
            + ".\(pad(millis, 3))Z"
    }

    /// Parses the subset Sideline writes and common variants: `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)`.
    public static func parse(_ text: Substring) -> Date? {
        let chars = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= chars.count else { return nil }
            var value = 0
            for c in chars[start..<start + count] {
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        guard chars.count >= 20,
              let year = number(0, 4), chars[4] == UInt8(ascii: "-"),
              let month = number(5, 2), chars[7] == UInt8(ascii: "-"),
              let day = number(8, 2), chars[10] == UInt8(ascii: "T"),
              let hour = number(11, 2), chars[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), chars[16] == UInt8(ascii: ":"),
              let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 {
                fraction += Double(chars[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetSeconds = 0
        guard index < chars.count else { return nil }
        switch chars[index] {
        case UInt8(ascii: "Z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = chars[index] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = number(index + 1, 2) else { return nil }
            var om = 0
            if index + 3 < chars.count, chars[index + 3] == UInt8(ascii: ":") {
                guard let m = number(index + 4, 2) else { return nil }
                om = m
                index += 6
            } else if let m = number(index + 3, 2) {
                om = m
                index += 5
            } else {
                index += 3
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard index == chars.count else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static let firstRepresentable = -62_167_219_200_000.0
    private static let lastRepresentable = 253_402_300_799_999.0

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Howard Hinnant's civil-from-days and days-from-civil (proleptic Gregorian calendar).
    private static func civilDate(fromDaysSinceEpoch z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysSinceEpoch(year y0: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
