/// An exact frame rate as a fraction, so that 29.97 means 30000/1001 and frame times add up
/// without drift.
public struct FrameRate: Sendable, Equatable {
    public let numerator: Int
    public let denominator: Int

    public init(numerator: Int, denominator: Int) {
        precondition(numerator > 0 && denominator > 0)
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Whole rates stay whole; the NTSC rates written as decimals (23.976, 29.97, 59.94, ...)
    /// become N x 1000/1001; anything else is kept to a thousandth of a frame.
    public init(_ value: Double) {
        let whole = value.rounded()
        if abs(value - whole) < 1e-6 {
            self.init(numerator: Int(whole), denominator: 1)
        } else if abs(value - whole * 1000 / 1001) < 0.005 {
            self.init(numerator: Int(whole) * 1000, denominator: 1001)
        } else {
            self.init(numerator: Int((value * 1000).rounded()), denominator: 1000)
        }
    }

    public var value: Double { Double(numerator) / Double(denominator) }
    public var frameDuration: Double { Double(denominator) / Double(numerator) }

    /// Output time of frame `index`, in seconds.
    public func time(ofFrame index: Int64) -> Double { Double(index) * Double(denominator) / Double(numerator) }
}
