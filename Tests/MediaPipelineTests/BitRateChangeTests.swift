import Foundation
import HLSPlaylist
@testable import MediaPipeline
import SidelineCore
import Synchronization
import Testing
import TestSupport

/// `sideline push` lowers and raises a running encoder's bit rate as its uplink changes
/// (`LivePipeline.bitRates`): the segment being encoded when the rate is asked for already
/// changes, the next one is wholly at the new rate, and the stream stays one stream (no
/// missed segment, every segment starts with its IDR and decodes).
@Suite struct BitRateChangeTests {
    @Test func aRateAskedForWhileEncodingShowsInTheNextSegment() async throws {
        let rung = Rung.test360p
        let low = 150_000
        let control = Mutex<BitRateControl?>(nil)
        let configuration = PipelineRun.configuration(input: Repository.sample, variants: [rung])
        // Down when segment 2 comes out, back up when segment 6 does.
        let outcome = try await PipelineRun.run(configuration, stopAfterSegments: 10, observe: { event, _ in
            guard case let .segment(_, segment) = event else { return }
            if segment.index == 2 { control.withLock { $0?.set(low, for: rung.name) } }
            if segment.index == 6 { control.withLock { $0?.set(nil, for: rung.name) } }
        }, opened: { pipeline in control.withLock { $0 = pipeline.bitRates } })
        let segments = try #require(outcome.segments[rung.name])
        try #require(segments.count >= 10, "\(outcome.failures)")
        #expect(segments.map(\.index) == Array(0..<segments.count), "no segment missed")
        let rates = segments.map { Double($0.bytes.count * 8) / $0.duration }
        let summary = rates.map { String(format: "%.0fk", $0 / 1000) }.joined(separator: " ")
        print("bit rate per segment (\(rung.bitrate) asked, \(low / 1000)k from segment 2's output, configured again from segment 6's): \(summary)")
        // Segment 4 is the first begun after the change was asked for: wholly at the low rate
        // (its VBV allows 1.1x the average, and the TS overhead of the audio and the tables).
        let audioAndTables = 200_000.0
        #expect(rates[4] < Double(low) * 1.5 + audioAndTables, "\(summary)")
        #expect(rates[3] < rates[1] * 0.8, "the segment being encoded when it was asked already shrinks: \(summary)")
        #expect(rates[8] > rates[4] * 2, "back up: \(summary)")
        let directory = NSTemporaryDirectory() + "sideline-bitrate-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for path in try PipelineRun.write(segments, to: directory) {
            let frames = try await Command.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0", path])
            #expect(frames.status == 0 && frames.stderr.isEmpty, "\(path) decodes: \(frames.stderr)")
            #expect(frames.stdout.split(separator: "\n").first?.hasPrefix("1") == true, "\(path) starts with its IDR")
        }
    }
}
