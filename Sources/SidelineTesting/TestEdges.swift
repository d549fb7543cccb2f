import Foundation
import HLSPlaylist

/// Low-Latency HLS edges of a recorded variant, as the server makes them: four 0.5 s parts a
/// segment, named as the recorder names them. One builder for the tests of the state, the
/// registry and the delivery of parts (before, each had its own near-copy).
public enum TestEdges {
    /// An edge with `open` parts of segment `next`, four parts for each entry in `listed`, and
    /// the hint at the next part; `openDate` is the open segment's date, when it has one.
    public static func recorded(listed: [Int] = [], open: Int, next: Int, openDate: Date? = nil) -> LowLatencyEdge {
        func parts(_ sequence: Int, _ count: Int) -> [PartialSegment] {
            (0..<count).map { PartialSegment(uri: PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: sequence), index: $0), duration: 0.5, independent: $0 == 0) }
        }
        let hinted = open < 4 ? (next, open) : (next + 1, 0)
        return LowLatencyEdge(partTarget: 0.5, partsPerSegment: 4, listedParts: Dictionary(uniqueKeysWithValues: listed.map { ($0, parts($0, 4)) }),
                              openParts: parts(next, open), openProgramDateTime: openDate,
                              hint: PreloadHint(uri: PartialSegment.recordedURI(segment: MediaSegment.recordedName(sequence: hinted.0), index: hinted.1)))
    }
}
