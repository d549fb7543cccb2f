extension Duration {
    /// The duration as fractional seconds: the one conversion every module uses (clocks,
    /// latencies, figures printed to people).
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
