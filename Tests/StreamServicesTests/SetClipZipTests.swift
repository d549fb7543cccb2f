import Foundation
import HLSOrigin
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Logging
import OriginAPI
import OriginRegistry
import OriginState
import SidelineConfig
import StreamServices
import TestSupport
import Testing
import ZIPFoundation

/// A set clip for real: `GET /api/sets/{set}/clip.zip` on a server on 127.0.0.1 with the
/// executable's `ClipService` (the remux and ZIPFoundation), over segments ffmpeg makes here.
/// The ZIP is opened with ZIPFoundation and each MP4 probed with ffprobe.
///
/// "goal" started a slot after "wide": its entries 0-2 are slots 1-3, the same files as
/// wide's entries 1-3. A clip cut by program date-times takes the same files from both, so
/// the two MP4s hold the same packets; one cut by each angle's own seconds would not.
@Suite struct SetClipZipTests {
    /// Four 2 s MPEG-TS segments with a keyframe at every start, as the pipeline writes them.
    static func segments(in directory: String) async throws -> [String] {
        let made = try await Command.run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=192x108:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-f", "segment", "-segment_time", "2", "-segment_format", "mpegts", "-reset_timestamps", "0", directory + "/%06d.ts",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        return (0..<4).map { String(format: "\(directory)/%06d.ts", $0) }
    }

    static func probe(_ arguments: [String]) async throws -> String {
        let result = try await Command.run("ffprobe", ["-v", "error"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test func aSetClipIsAZipOfEveryAngleCutAtTheSameMoment() async throws {
        let directory = try makeTemporaryDirectory("set-clip-zip")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try await Self.segments(in: directory)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let registry = StreamRegistry(clock: { 0 }, angleSets: [.init(name: "match", streams: ["wide", "goal"], segmentDuration: 2)])
        for (angle, late) in [("wide", 0), ("goal", 1)] {
            registry.apply(.register(stream: angle, variants: ["720p"], targetDuration: 2))
            var entries: [MediaSegment] = []
            for slot in late..<4 {
                entries.append(MediaSegment(uri: String(format: "%06d.ts", slot), duration: 2, programDateTime: start.addingTimeInterval(Double(2 * slot))))
                let size = (try FileManager.default.attributesOfItem(atPath: files[slot])[.size] as? Int) ?? 0
                registry.apply(.publish(.init(.segment(entries.last!.uri, file: .init(path: files[slot], size: size, duration: 2)), stream: angle, variant: "720p",
                                       playlist: LiveMediaPlaylist(MediaPlaylist(targetDuration: 2, mediaSequence: late, segments: entries)))))
            }
        }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let app = OriginServer.makeApplication(registry: registry, host: "127.0.0.1", port: 0, logger: logger,
                                               routes: [{ ClipRoutes(registry: registry, maker: ClipService(), dataDirectory: directory).add(to: $0) }])
        let zip = directory + "/clip.zip"
        try await app.test(.live) { client in
            try await client.execute(uri: "/api/sets/match/clip.zip?start=2.5&end=5.5", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"match-2027-01-15T08-00-02.500Z-3s.zip\"")
                #expect(FileManager.default.createFile(atPath: zip, contents: Data(response.body.readableBytesView)))
            }
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory + "/.clips")) ?? []).isEmpty, "no scratch file is left")
        let archive = try Archive(url: URL(fileURLWithPath: zip), accessMode: .read)
        let entries = Array(archive)
        #expect(entries.map(\.path) == ["match-wide.mp4", "match-goal.mp4"])
        #expect(entries.allSatisfy { $0.compressedSize == $0.uncompressedSize }, "stored, not deflated")
        var packets: [String] = []
        for entry in entries {
            let mp4 = directory + "/" + entry.path
            _ = try archive.extract(entry, to: URL(fileURLWithPath: mp4))
            let duration = Double(try await Self.probe(["-show_entries", "format=duration", "-of", "csv=p=0", mp4]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            // From slot 1's keyframe (2 s, at or before the asked 2.5 s) to 5.5 s.
            #expect(abs(duration - 3.5) < 0.1, "\(entry.path): \(duration) s")
            packets.append(try await Self.probe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,size,flags", "-of", "csv=p=0", mp4]))
        }
        #expect(!packets[0].isEmpty && packets[0] == packets[1], "both angles hold the same slots' packets")
    }
}
