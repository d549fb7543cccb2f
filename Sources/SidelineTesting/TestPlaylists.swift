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
