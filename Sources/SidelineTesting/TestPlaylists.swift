import Foundation
import HLSPlaylist

/// Media playlists for origin tests: `count` 2 s entries named 000000.ts, 000001.ts, ...
public enum TestPlaylists {
    public static func live(count: Int, targetDuration: Int = 2, ended: Bool = false, dateRangeAt: Set<Int> = []) -> LiveMediaPlaylist {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let segments = (0..<count).map { i in
            MediaSegment(uri: String(format: "%06d.ts", i), duration: 2, programDateTime: start.addingTimeInterval(Double(2 * i)),
                         dateRanges: dateRangeAt.contains(i) ? [DateRange(id: "mark-\(i)", classLabel: "com.example", startDate: start.addingTimeInterval(Double(2 * i)))] : [])
        }
        return LiveMediaPlaylist(MediaPlaylist(targetDuration: targetDuration, segments: segments, endList: ended))
    }
}

extension MultivariantPlaylist {
    /// A master a test writes as text, as the value the registry takes (`StreamRegistry.setMaster`):
    /// a test's own text that does not parse is the test's mistake, and stops it at once.
    public static func parsed(_ text: String) -> MultivariantPlaylist {
        do {
            return try parse(text)
        } catch {
            preconditionFailure("a test's master does not parse: \(error)\n\(text)")
        }
    }
}
