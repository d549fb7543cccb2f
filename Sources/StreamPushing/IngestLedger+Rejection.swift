import Foundation
import HLSPlaylist
import MPEGTS
import SidelineCore

extension IngestLedger {
    public enum Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownVariant(String, known: [String])
        case segmentTooLong(name: String, seconds: Double, limit: Double)
        case playlistUnreadable(String)
        case segmentNotReceived(name: String, sequence: Int)
        case durationMismatch(name: String, listed: Double, measured: Double)
        /// The playlist lists the same segment under several sequence numbers.
        case repeatedEntry(name: String, sequences: [Int])
        /// A sequence number more than `limit` past the highest the session listed.
        case sequenceJump(name: String, sequence: Int, highest: Int, limit: Int)
        /// A segment for a slot that starts `seconds` after now, more than `margin` ahead.
        case aheadOfTime(name: String, seconds: Double, margin: Double)

        public var description: String {
            switch self {
            case let .unknownVariant(variant, known):
                "variant '\(variant)' is not in this stream's ladder (\(known.joined(separator: ", "))): push the variants the server's config names"
            case let .segmentTooLong(name, seconds, limit):
                "segment '\(name)' lasts \(DecimalFormat.compact(seconds)) s, more than \(DecimalFormat.compact(limit)) s: cut segments every segment_duration (ffmpeg: -hls_time and -force_key_frames)"
            case let .playlistUnreadable(reason):
                "the playlist cannot be read: \(reason)"
            case let .segmentNotReceived(name, sequence):
                "the playlist lists '\(name)' (media sequence \(sequence)), which this server has not received: upload each segment before the playlist that lists it"
            case let .durationMismatch(name, listed, measured):
                "the playlist gives '\(name)' EXTINF \(DecimalFormat.compact(listed)) s, but its video lasts \(DecimalFormat.compact(measured)) s"
            case let .repeatedEntry(name, sequences):
                "the playlist lists '\(name)' more than once (media sequence \(sequences.map(String.init).joined(separator: ", "))): list each segment once, under one sequence number"
            case let .aheadOfTime(name, seconds, margin):
                "the playlist lists '\(name)' for a slot that starts \(DecimalFormat.compact(seconds.rounded())) s from now, more than \(DecimalFormat.compact(margin)) s ahead: its sequence number runs ahead of the time the session has run; an encoder that starts again starts its numbers again"
            case let .sequenceJump(name, sequence, highest, limit):
                "the playlist lists '\(name)' at media sequence \(sequence), more than \(limit) (a day of segments) past \(highest), the highest this session listed: an encoder that starts again starts its numbers again below that"
            }
        }
    }
}
