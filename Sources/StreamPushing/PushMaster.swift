import HLSPlaylist

/// The master playlist `sideline push` uploads: the rungs it sends now, with what their
/// encoders really are (CODECS and RESOLUTION from the first SPS). The server renders its own
/// master from its config and takes from this one what each variant is and which rungs come:
/// a rung left out is filled by the server until it is listed again. Pure.
public enum PushMaster {
    /// Nil until every rung sent has a known format.
    public static func render(sent: [String], formats: [String: VariantFormat], peakBitRates: [String: Int]) -> String? {
        var variants: [VariantStream] = []
        for name in sent {
            guard let format = formats[name] else { return nil }
            variants.append(VariantStream(uri: "\(name)/index.m3u8", bandwidth: peakBitRates[name] ?? 0, codecs: format.codecs,
                                          resolution: .init(width: format.width, height: format.height), frameRate: format.frameRate))
        }
        return MultivariantPlaylist(variants: variants).render()
    }
}
