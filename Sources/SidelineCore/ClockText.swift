import Foundation

/// Media time as the status lines show it: `01:02:05`, or `01:02:05.40` with hundredths.
public enum ClockText {
    public static func of(_ seconds: Double, hundredths: Bool = false) -> String {
        let total = Int(seconds)
        let clock = String(format: "%02d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
        return hundredths ? clock + String(format: ".%02d", Int((seconds - Double(total)) * 100)) : clock
    }
}
