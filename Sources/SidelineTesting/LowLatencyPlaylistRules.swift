import HLSPlaylist

/// The draft's rules for a Low-Latency HLS media playlist (draft-pantos-hls-rfc8216bis §4.4.3.7,
/// §4.4.3.8, §4.4.4.9, §4.4.5.3, §4.4.5.4), checked the way the strictest players check them,
/// for the tests to hold every live playlist they see to:
/// - AVPlayer refuses a whole asset if one part is longer than PART-TARGET;
/// - hls.js in low-latency mode needs the preload hint, and an INDEPENDENT part that does not
///   start with a keyframe leaves it a gap (a single box's segments start with their only IDR,
///   so a segment's first part, and only it, is INDEPENDENT; a redundant pair starts every part
///   with an IDR, so every part is, `keyframeEveryPart`);
/// - a player joining at PART-HOLD-BACK needs the date of every part.
/// Each violation is one sentence naming what is wrong; an empty list: the playlist passes.
public enum LowLatencyPlaylistRules {
    /// `renditions`: the URIs, relative to this playlist, of every other rendition a player may
    /// switch to (every rung, every angle of a set): each needs its EXT-X-RENDITION-REPORT.
    /// `keyframeEveryPart`: the playlist is a redundant pair's (`redundancy.keyframe_every_part`),
    /// whose every part with media starts with an IDR and must say so (a GAP part has none).
    public static func violations(of text: String, renditions: [String] = [], keyframeEveryPart: Bool = false) -> [String] {
        let parsed: (playlist: MediaPlaylist, serverControl: ServerControl?, edge: LowLatencyEdge?)
        do {
            parsed = try MediaPlaylist.parseLive(text)
        } catch {
            return ["the playlist does not parse: \(error)"]
        }
        guard let edge = parsed.edge else { return ["no EXT-X-PART-INF: the playlist lists no parts"] }
        var found: [String] = []
        let playlist = parsed.playlist
        let target = edge.partTarget
        // PART-TARGET and DURATION are written with six decimals: allow their rounding.
        let rounding = 1e-6

        if let control = parsed.serverControl {
            if !control.canBlockReload { found.append("EXT-X-SERVER-CONTROL lacks CAN-BLOCK-RELOAD=YES, which parts require") }
            if let partHoldBack = control.partHoldBack {
                if partHoldBack + rounding < 3 * target { found.append("PART-HOLD-BACK \(partHoldBack) is less than three PART-TARGETs (\(3 * target))") }
            } else {
                found.append("EXT-X-SERVER-CONTROL lacks PART-HOLD-BACK, which parts require")
            }
            if let holdBack = control.holdBack, holdBack + rounding < Double(3 * playlist.targetDuration) {
                found.append("HOLD-BACK \(holdBack) is less than three target durations (\(3 * playlist.targetDuration))")
            }
        } else {
            found.append("no EXT-X-SERVER-CONTROL: parts need CAN-BLOCK-RELOAD and PART-HOLD-BACK")
        }

        var runs: [(name: String, parts: [PartialSegment], complete: Bool)] = []
        for (offset, segment) in playlist.segments.enumerated() {
            if segment.programDateTime == nil { found.append("\(segment.uri) has no EXT-X-PROGRAM-DATE-TIME") }
            guard let parts = edge.listedParts[playlist.mediaSequence + offset], !parts.isEmpty else { continue }
            runs.append((segment.uri, parts, true))
            let sum = parts.reduce(0) { $0 + $1.duration }
            if abs(sum - segment.duration) > rounding * Double(parts.count + 1) + 0.001 {
                found.append("the parts of \(segment.uri) last \(sum) s, its EXTINF \(segment.duration) s")
            }
        }
        if !edge.openParts.isEmpty {
            runs.append(("the segment being made", edge.openParts, false))
            if edge.openProgramDateTime == nil { found.append("the parts of the segment being made have no EXT-X-PROGRAM-DATE-TIME") }
        }
        for run in runs {
            for (index, part) in run.parts.enumerated() {
                if part.duration > target + rounding { found.append("\(part.uri) lasts \(part.duration) s, longer than PART-TARGET \(target)") }
                // The last part of a segment, and an independent one, may be shorter (§4.4.4.9);
                // the segment being made has no last part yet.
                let last = run.complete && index == run.parts.count - 1
                if !last, !part.independent, part.duration + rounding < 0.85 * target {
                    found.append("\(part.uri) lasts \(part.duration) s, less than 85% of PART-TARGET \(target)")
                }
                if keyframeEveryPart, !part.independent, !part.gap {
                    found.append("\(part.uri) is not INDEPENDENT=YES, though every part of a redundant pair starts with an IDR")
                } else if !keyframeEveryPart, part.independent != (index == 0) {
                    found.append(index == 0 ? "\(part.uri), the first part of \(run.name), is not INDEPENDENT=YES"
                                            : "\(part.uri) is INDEPENDENT=YES but does not start \(run.name) (its keyframe)")
                }
            }
        }

        let hints = text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-PRELOAD-HINT:") }
        if hints.count != 1 { found.append("\(hints.count) EXT-X-PRELOAD-HINT tags; a live playlist with parts has exactly one of TYPE=PART") }
        if let hint = edge.hint, runs.contains(where: { $0.parts.contains { $0.uri == hint.uri } }) {
            found.append("the preload hint \(hint.uri) names a part already listed")
        }
        for rendition in renditions {
            guard let report = edge.reports.first(where: { $0.uri == rendition }) else {
                found.append("no EXT-X-RENDITION-REPORT for \(rendition)")
                continue
            }
            if report.lastPart == nil { found.append("the rendition report for \(rendition) has no LAST-PART") }
        }
        return found
    }
}
