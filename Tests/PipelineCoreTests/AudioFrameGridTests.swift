import PipelineCore
import Testing

/// Audio frames of wall-clock timelines fall on one grid, counted from 1970.
@Suite struct AudioFrameGridTests {
    /// Two timelines whose epochs differ by 2 s (96,000 samples at 48 kHz, not a multiple of
    /// 1,024) start their audio on the same instants: absolute sample = epoch + start.
    @Test func twoEpochsCutTheirFramesAtTheSameInstants() throws {
        let a = try #require(AudioFrameGrid.epochSample(secondsSince1970: 1_795_798_000, sampleRate: 48_000))
        let b = try #require(AudioFrameGrid.epochSample(secondsSince1970: 1_795_798_002, sampleRate: 48_000))
        let startA = AudioFrameGrid.start(forFirstSample: 96_000 + 50_000, frameSize: 1024, epochSample: a)
        let startB = AudioFrameGrid.start(forFirstSample: 50_000, frameSize: 1024, epochSample: b)
        #expect((a + startA) % 1024 == 0 && (b + startB) % 1024 == 0)
        #expect(a + startA == b + startB, "the same instant on the wall clock")
        #expect(startB >= 50_000 && startB - 50_000 < 1024, "at or after the first sample, less than a frame on")
    }

    /// A stream in no set starts its audio where its first sample belongs.
    @Test func noEpochNoGrid() {
        #expect(AudioFrameGrid.start(forFirstSample: 12_345, frameSize: 1024, epochSample: nil) == 12_345)
        #expect(AudioFrameGrid.start(forFirstSample: 12_345, frameSize: 1024, epochSample: Int64.max) == 12_345, "overflow: no grid")
        #expect(AudioFrameGrid.epochSample(secondsSince1970: .nan, sampleRate: 48_000) == nil)
    }

    /// A grid point is its own start; negative absolute values (an epoch before 1970) land on
    /// the grid too, at or after the target.
    @Test func onTheGridAndBefore1970() {
        #expect(AudioFrameGrid.start(forFirstSample: 2048, frameSize: 1024, epochSample: 0) == 2048)
        #expect(AudioFrameGrid.start(forFirstSample: 100, frameSize: 1024, epochSample: -1000) == 1000, "-1000 + 1000 = 0")
        #expect(AudioFrameGrid.start(forFirstSample: 100, frameSize: 1024, epochSample: -2000) == 976, "-2000 + 976 = -1 x 1024")
    }
}
