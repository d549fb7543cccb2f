import Foundation

/// A bit rate written the way ffmpeg users write it: `3000k`, `3M`, `128000`; an integer
/// literal is bits per second.
public struct BitRate: Sendable, Equatable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public var bitsPerSecond: Int

    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }
    public init(integerLiteral bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }
    public static func kbps(_ value: Int) -> BitRate { BitRate(bitsPerSecond: value * 1000) }

    /// Parses `<number>[k|K|m|M]` (`1.5M` too). Nil for anything else, including zero or negatives.
    public init?(parsing text: String) {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        var multiplier = 1
        switch digits.last {
        case "k", "K": multiplier = 1000; digits = digits.dropLast()
        case "m", "M": multiplier = 1_000_000; digits = digits.dropLast()
        default: break
        }
        guard let value = Double(digits), value.isFinite, value > 0, value * Double(multiplier) < 1e12,
              digits.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        bitsPerSecond = Int((value * Double(multiplier)).rounded())
    }

    public var description: String {
        if bitsPerSecond % 1_000_000 == 0 { return "\(bitsPerSecond / 1_000_000)M" }
        if bitsPerSecond % 1000 == 0 { return "\(bitsPerSecond / 1000)k" }
        return String(bitsPerSecond)
    }

    public static func < (a: BitRate, b: BitRate) -> Bool { a.bitsPerSecond < b.bitsPerSecond }
}
