import HLSPlaylist
import OriginPolicy

/// `EXT-X-RENDITION-REPORT`s for a variant of a stream: every other rung of the stream and, for
/// an angle of a set, every rung of the set's other angles, each where it has got (its last
/// part, or its last segment where it lists no parts yet). Read from the state when a version
/// is rendered, so a report is as fresh as the version that carries it.
public enum RenditionReports {
    public static func reports(for variant: String, of stream: String, in state: OriginState) -> [RenditionReport] {
        guard let own = state.streams[stream] else { return [] }
        var reports = Self.reports(own, except: variant, prefix: "../")
        for set in state.angleSets where set.streams.contains(stream) {
            for angle in set.streams where angle != stream {
                guard let other = state.streams[angle], other.phase != .removed else { continue }
                reports += Self.reports(other, except: nil, prefix: "../../\(angle)/")
            }
        }
        return reports
    }

    private static func reports(_ stream: OriginState.Stream, except skipped: String?, prefix: String) -> [RenditionReport] {
        stream.variantOrder.compactMap { name -> RenditionReport? in
            guard name != skipped, let variant = stream.variants[name], let playlist = variant.recording, !playlist.endList else { return nil }
            let last: (sequence: Int, part: Int?) = variant.edge?.lastPart(after: playlist.lastSequence) ?? (playlist.lastSequence, nil)
            return RenditionReport(uri: prefix + name + "/index.m3u8", lastSequence: last.sequence, lastPart: last.part)
        }
    }
}
