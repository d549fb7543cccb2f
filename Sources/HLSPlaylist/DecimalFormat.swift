/// Locale-free decimal formatting for playlist attributes, so a renderer never depends on
/// the process locale (a comma decimal separator would corrupt EXTINF).
enum DecimalFormat {
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
