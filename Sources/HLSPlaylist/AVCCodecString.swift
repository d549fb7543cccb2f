/// RFC 6381 `avc1.PPCCLL` codec strings, built from the encoder's real sequence parameter set
/// rather than from configuration, so CODECS always says what the segments contain.
public enum AVCCodecString {
    /// `avc1.` followed by profile_idc, the constraint-flag byte and level_idc in hex.
    public static func make(profileIDC: UInt8, constraintFlags: UInt8, levelIDC: UInt8) -> String {
        "avc1." + hex(profileIDC) + hex(constraintFlags) + hex(levelIDC)
    }

    /// From an SPS NAL unit (starting at its one-byte NAL header, type 7; H.264 §7.3.2.1.1):
    /// bytes 1, 2 and 3 are profile_idc, the constraint flags and level_idc. Nil if `nal` is
    /// not an SPS.
    public static func make(fromSPS nal: some Collection<UInt8>) -> String? {
        let bytes = Array(nal.prefix(4))
        guard bytes.count == 4, bytes[0] & 0x1F == 7 else { return nil }
        return make(profileIDC: bytes[1], constraintFlags: bytes[2], levelIDC: bytes[3])
    }

    /// From an SPS, declaring `profileIDC` and `constraintFlags` instead of the SPS's own: the
    /// profile that covers every encoder setting the variant may use (a step down writes a
    /// lower profile than the master, read once, must declare). Level from the SPS.
    public static func make(fromSPS nal: some Collection<UInt8>, declaringProfile profileIDC: UInt8, constraintFlags: UInt8) -> String? {
        let bytes = Array(nal.prefix(4))
        guard bytes.count == 4, bytes[0] & 0x1F == 7 else { return nil }
        return make(profileIDC: profileIDC, constraintFlags: constraintFlags, levelIDC: bytes[3])
    }

    /// The AAC-LC string (object type 2), which is what Sideline's audio encoder produces.
    public static let aacLC = "mp4a.40.2"

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
