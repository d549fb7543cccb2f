/// Locale-free decimal formatting for playlist attributes, so a renderer never depends on
/// the process locale (a comma decimal separator would corrupt EXTINF).
///
/// Both formats answer every Double: the parsers bound what they read (`PlaylistLimits`), and
/// a value that got past them anyway (nan, infinity, 1e300) must still not stop the process
/// where it is rendered, since `Int(someDouble)` traps on those.
public enum DecimalFormat {
    /// Seconds for messages: "3" for 3.0, "1.5" for 1.5; Swift's own text for values no
    /// integer holds ("nan", "inf", "1e+300").
    public static func compact(_ value: Double) -> String {
        guard value.isFinite, value == value.rounded(), abs(value) < 0x1p53 else { return String(value) }
        return String(Int(value))
    }

    /// `value` with exactly `places` decimals (0 to 9), rounded half away from zero. Not a
    /// number renders as 0; magnitudes beyond what an Int64 of 10^-places units holds render
    /// as that largest magnitude, with their sign.
    public static func fixed(_ value: Double, places: Int) -> String {
        let places = min(max(places, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let magnitude = value.isNaN ? 0 : (abs(value) * Double(scale)).rounded()
        // Double(Int64.max) rounds up to 2^63, which Int64 cannot hold: compare against that.
        let scaled = magnitude < 0x1p63 ? Int64(magnitude) : Int64.max
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let whole = scaled / scale
        guard places > 0 else { return sign + String(whole) }
        let fraction = String(scaled % scale)
        return sign + String(whole) + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
