/// Finds NAL units in an H.264 Annex B byte stream (start codes 00 00 01 / 00 00 00 01).
public enum AnnexB {
    /// The NAL units of `bytes`, each without its start code.
    public static func nalUnits(in bytes: UnsafeBufferPointer<UInt8>) -> [Slice<UnsafeBufferPointer<UInt8>>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        return starts.enumerated().map { n, start in
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            // A four-byte start code leaves one zero behind the previous unit.
            if n + 1 < starts.count, end > start, bytes[end - 1] == 0 { end -= 1 }
            return bytes[start..<end]
        }
    }
}
