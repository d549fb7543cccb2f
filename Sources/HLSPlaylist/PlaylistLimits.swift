/// The largest numbers a playlist Sideline reads may carry. RFC 8216 allows any decimal-integer
/// below 2^64 and any decimal-floating-point; an ingest and a mirror read playlists from
/// machines they do not control, and every number read goes on into arithmetic (sequence
/// numbers plus entry counts, byte ranges plus lengths, durations times 90 kHz) or into a
/// renderer. So each is bounded where it is parsed, far above anything a real stream carries
/// and far enough below Int64.max that the sums and products made of it cannot overflow.
public enum PlaylistLimits {
    /// Sequence numbers, byte counts and bit rates: 2^53 - 1, which a Double (and so JSON) holds
    /// exactly. A segment a second would need 285 million years to reach it; two such numbers
    /// plus any count of entries still fit in an Int.
    public static let largestNumber = (1 << 53) - 1

    /// EXTINF and EXT-X-TARGETDURATION, in seconds: a day. A segment lasts seconds; a day of
    /// them in 90 kHz ticks is 7.8e9, and summed over any playlist that fits in memory stays far
    /// below what a Date or a 90 kHz Int64 can hold.
    public static let longestSegment = 86_400.0

    /// Other spans in seconds (DATERANGE's DURATION, CAN-SKIP-UNTIL, EXT-X-START's TIME-OFFSET):
    /// a billion seconds, about 31 years.
    public static let longestSpan = 1e9

    /// FRAME-RATE: above 0, at most 1,000 frames a second.
    public static let highestFrameRate = 1_000.0

    /// RESOLUTION's width and height: 1 to 65,535 pixels (what H.264 and HEVC can signal).
    public static let largestDimension = 65_535

    /// An integer attribute or tag value in 0...largestNumber; nil for anything else.
    static func count(_ text: some StringProtocol) -> Int? {
        guard let value = Int(text), (0...largestNumber).contains(value) else { return nil }
        return value
    }

    /// A decimal in `range` (finite by construction); nil for anything else, nan included.
    static func decimal(_ text: some StringProtocol, in range: ClosedRange<Double>) -> Double? {
        guard let value = Double(text), value.isFinite, range.contains(value) else { return nil }
        return value
    }
}
