import Foundation
import HLSPlaylist

/// What a clip asks for: the files, where to cut, and the file name. Pure, so its 400s and
/// 404s are tested without a server; `ClipPlan.plan(stream:query:registry:)` (OriginAPI) looks
/// the stream up for the route, `sideline export` reads the recording from disk.
public struct ClipPlan: Sendable, Equatable {
    public var variant: String
    public var segments: [String]
    public var start: Double
    public var end: Double
    /// The wall-clock time of the asked start, when known.
    public var startDate: Date?
    public var fileName: String

    /// The clip of `window` from a variant's recorded `playlist`; `file` gives an entry's
    /// segment file (nil when there is none). For the route and for `sideline export` alike.
    public static func plan(stream name: String, variant variantName: String, playlist: MediaPlaylist, window: TimeWindow,
                            file: (MediaSegment) -> String?) -> Result<ClipPlan, Refusal> {
        let span: WindowSpan
        switch PlaylistTimes(playlist).resolve(window) {
        case let .success(resolved): span = resolved
        case let .failure(rejection): return .failure(.malformed(rejection.message))
        }
        // GAP entries have no file: the clip skips them (it then starts at the first real entry).
        let entries = playlist.segments[span.entries]
        let files = entries.compactMap { $0.gap ? nil : file($0) }
        guard !files.isEmpty else { return .failure(Refusal(.onlyGaps, "the range holds only missing (EXT-X-GAP) entries")) }
        let leadingGaps = entries.prefix { $0.gap }.reduce(0.0) { $0 + $1.duration }
        let start = max(0, span.start - leadingGaps)
        let end = span.end - leadingGaps
        let stamp = span.startDate.map { ProgramDateTime.format($0).replacingOccurrences(of: ":", with: "-") } ?? "\(Int(span.start))s"
        let seconds = Int((span.end - span.start).rounded())
        return .success(ClipPlan(variant: variantName, segments: files, start: start, end: end, startDate: span.startDate,
                                 fileName: "\(name)-\(variantName)-\(stamp)-\(seconds)s.mp4"))
    }

    /// Which variant a clip is cut from, as a route and `sideline export` both decide it.
    public enum VariantChoice: Sendable, Equatable {
        case variant(String)
        /// The asked variant is not one of the stream's.
        case unknown(asked: String, has: [String])
        /// The asked variant (or, with none asked, every variant) has recorded nothing yet.
        case nothingRecorded(asked: String?)
    }

    /// `asked`: the variant asked for (nil or empty: the best one); `variants`: the stream's
    /// variants, best first; `recorded`: those that have recorded something.
    public static func variant(asked: String?, variants: [String], recorded: Set<String>) -> VariantChoice {
        if let asked, !asked.isEmpty {
            guard variants.contains(asked) else { return .unknown(asked: asked, has: variants) }
            return recorded.contains(asked) ? .variant(asked) : .nothingRecorded(asked: asked)
        }
        return variants.first(where: recorded.contains).map { .variant($0) } ?? .nothingRecorded(asked: nil)
    }
}
