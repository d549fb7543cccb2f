/// Transport-stream bytes for tests that need a segment a check accepts without encoding one.
public enum TestSegments {
    /// `packets` TS packets: sync bytes, the PAT (PID 0) first, the rest on PID 0x100, stuffed
    /// with 0xFF. What the mirror's and the ingest's segment checks take for a whole segment.
    public static func minimal(packets: Int = 4) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xFF, count: packets * 188)
        for packet in 0..<packets {
            bytes[packet * 188] = 0x47
            bytes[packet * 188 + 1] = packet == 0 ? 0 : 1
            bytes[packet * 188 + 2] = 0
        }
        return bytes
    }
}
