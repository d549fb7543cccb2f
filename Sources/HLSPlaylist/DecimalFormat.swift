/// Locale-free decimal formatting for playlist attributes, so a renderer never depends on
/// the process locale (a comma decimal separator would corrupt EXTINF).
public enum DecimalFormat {
    /// Seconds for messages: "3" for 3.0, "1.5" for 1.5.
    public static func compact(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// `value` with exactly `places` decimals, rounded half away from zero.
    static func fixed(_ value: Double, places: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / scale
        guard places > 0 else { return sign + String(whole) }
        let fraction = String(scaled % scale)
        return sign + String(whole) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
