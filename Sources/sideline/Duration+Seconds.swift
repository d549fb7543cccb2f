extension Duration {
    /// The duration as fractional seconds, for figures printed to people.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
