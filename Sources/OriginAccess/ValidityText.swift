/// How long a signed URL stays valid, as `sideline sign --expires` takes it: a whole number
/// followed by `s`, `m`, `h` or `d` (`90s`, `30m`, `3h`, `2d`).
public enum ValidityText {
    /// Seconds; nil for anything else (no unit, zero, a fraction, more than 366 days).
    public static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, text.count > 1, text.dropLast().allSatisfy({ $0 >= "0" && $0 <= "9" }), let number = Int(text.dropLast()), number > 0 else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86400
        default: return nil
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow || seconds > 366 * 86400 ? nil : seconds
    }
}
