import Foundation
import HLSPlaylist
import IngestPolicy
import OriginPolicy
import SegmentStore
import SidelineConfig
import SidelineCore

/// The ladder a pushed stream with no configured ladder took from its encoder's master
/// (`IngestMaster.ladder(for:configured:kept:)` decides), kept in the stream's data directory
/// (`<stream>/ingest/ladder.json`, atomically, by `PushedStreamFiles`) so a restart serves the
/// same rungs before the encoder's first upload.
public enum PushedLadder {
    /// The ladder kept before, held to the same checks as a pushed master's (the file is on
    /// disk an operator can edit); nil when there is none or it does not pass.
    public static func load(_ files: PushedStreamFiles) -> [DeclaredRung]? {
        guard let rungs = files.load([DeclaredRung].self, from: .ladder) else { return nil }
        let master = MultivariantPlaylist(variants: rungs.map {
            VariantStream(uri: "\($0.name)/\(StreamLayout.mediaPlaylistName)", bandwidth: $0.bandwidth, codecs: $0.codecs,
                          resolution: .init(width: $0.width, height: $0.height), frameRate: $0.frameRate)
        })
        guard case let .success(checked) = IngestMaster.declaredLadder(master, playlist: StreamLayout.mediaPlaylistName), checked == rungs else { return nil }
        return checked
    }

    /// `video` with the declared rungs as its ladder: the encoder made them, so the rates are
    /// its BANDWIDTH (the server's BANDWIDTH, computed from them, bounds it from above), and
    /// the frame rate is the best rung's when the master states one.
    public static func video(_ rungs: [DeclaredRung], over video: VideoSettings) -> VideoSettings {
        // `declaredLadder` bounds BANDWIDTH to 200 Mbit/s: twice that cannot overflow.
        var taken = video
        taken.ladder = rungs.map {
            let rate = BitRate(bitsPerSecond: $0.bandwidth)
            return Rung(name: $0.name, width: $0.width, height: $0.height, bitrate: rate, maxrate: rate,
                        bufsize: BitRate(bitsPerSecond: $0.bandwidth * 2), preset: "veryfast", profile: "high")
        }
        if let rate = rungs.first?.frameRate { taken.frameRate = rate }
        return taken
    }

    /// `stream` as a restart serves it: a pushed stream whose config names no ladder takes the
    /// one kept on disk; any other stream is as configured.
    static func restoring(_ stream: StreamSettings, dataDirectory: String) -> StreamSettings {
        guard stream.isPushed, !stream.video.ladderConfigured, let kept = load(PushedStreamFiles(layout: StreamLayout(dataDirectory: dataDirectory, stream: stream.name))) else { return stream }
        var restored = stream
        restored.video = video(kept, over: stream.video)
        return restored
    }
}
