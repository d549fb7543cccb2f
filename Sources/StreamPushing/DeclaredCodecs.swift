import MPEGTS

/// Whether a pushed variant's declared CODECS (its master's `EXT-X-STREAM-INF`) are what its
/// segments carry, decided from the segment's program map (`PushedSegmentCheck.Inspection`).
/// Pure.
///
/// Why: the server renders the master players get (and a set's master, which joins every
/// angle's codecs) from what the encoder declares. A declaration the segments cannot carry
/// (HEVC declared for H.264 segments, an audio codec for segments without sound, a codec
/// MPEG-TS does not carry at all) makes a player set up decoders the media does not match, or
/// turn the variant down (issue 33: declared codecs were taken on trust into a set's master).
/// RFC 8216 §4.3.4.2: CODECS lists every media format in the variant's segments.
public enum DeclaredCodecs {
    /// A codec family as MPEG-TS carries it.
    enum Family: String, Sendable {
        case h264 = "H.264", hevc = "HEVC", aac = "AAC", mpegAudio = "MPEG audio", ac3 = "AC-3", eac3 = "E-AC-3"

        var isVideo: Bool { self == .h264 || self == .hevc }

        /// The family of an RFC 6381 codec string as HLS masters write them; nil for one
        /// MPEG-TS does not carry.
        init?(codec: String) {
            let lower = codec.lowercased()
            if lower.hasPrefix("avc1.") || lower.hasPrefix("avc3.") {
                self = .h264
            } else if lower.hasPrefix("hvc1.") || lower.hasPrefix("hev1.") {
                self = .hevc
            } else if ["mp4a.40.32", "mp4a.40.33", "mp4a.40.34", "mp4a.69", "mp4a.6b"].contains(lower) {
                // MPEG-1/2 audio layers 1-3 (ffmpeg writes mp4a.40.33 for MP2, .34 for MP3).
                self = .mpegAudio
            } else if lower.hasPrefix("mp4a.40.") {
                self = .aac
            } else if lower == "ac-3" {
                self = .ac3
            } else if lower == "ec-3" {
                self = .eac3
            } else {
                return nil
            }
        }

        /// The family of a PMT stream type; nil for one that is no audio or video.
        init?(streamType: Int) {
            switch streamType {
            case PushedSegmentCheck.h264: self = .h264
            case PushedSegmentCheck.hevc: self = .hevc
            case 0x0F, 0x11: self = .aac
            case 0x03, 0x04: self = .mpegAudio
            case 0x81: self = .ac3
            case 0x87: self = .eac3
            default: return nil
            }
        }
    }

    /// Why a segment inspected as `inspection` cannot carry what `codecs` declares; nil when
    /// it carries exactly the families declared (one video codec, and the audio codecs it has).
    public static func mismatch(declared codecs: [String], inspection: PushedSegmentCheck.Inspection) -> String? {
        var declared: Set<Family> = []
        for codec in codecs {
            guard let family = Family(codec: codec) else { return "CODECS names '\(codec.prefix(32))', which MPEG-TS segments do not carry" }
            declared.insert(family)
        }
        let carried = Set(([inspection.videoStreamType] + inspection.audioStreamTypes).compactMap { Family(streamType: $0) })
        guard declared != carried else { return nil }
        func names(_ families: Set<Family>) -> String {
            families.isEmpty ? "nothing" : families.map(\.rawValue).sorted().joined(separator: " and ")
        }
        return "CODECS declares \(names(declared)), but the segments carry \(names(carried))"
    }
}
