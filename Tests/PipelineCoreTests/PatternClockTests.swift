import PipelineCore
import Testing

/// The test pattern's clock in pixels: painted into a grey luma plane, downscaled as the lowest
/// rungs do, disturbed by noise, and damaged.
@Suite struct PatternClockTests {
    /// 2026-11-27 12:00:00.123 UTC.
    let sample: Int64 = 1_795_780_800_123

    /// A mid-grey plane with the clock painted in; `stride` may exceed `width` like FFmpeg's.
    static func painted(_ milliseconds: Int64, width: Int = 1280, height: Int = 720, stride: Int? = nil) -> (plane: [UInt8], stride: Int) {
        let stride = stride ?? width
        var plane = [UInt8](repeating: 128, count: stride * height)
        for block in PatternClock.blocks(milliseconds: milliseconds, width: width, height: height) {
            for y in block.y..<(block.y + block.height) {
                for x in block.x..<(block.x + block.width) {
                    plane[y * stride + x] = block.isWhite ? PatternClock.white : PatternClock.black
                }
            }
        }
        return (plane, stride)
    }

    /// Box-averages a plane down by `factor` both ways, as a scaler does at worst.
    static func downscaled(_ plane: [UInt8], width: Int, height: Int, factor: Int) -> [UInt8] {
        let w = width / factor, h = height / factor
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0
                for dy in 0..<factor { for dx in 0..<factor { sum += Int(plane[(y * factor + dy) * width + x * factor + dx]) } }
                out[y * w + x] = UInt8(sum / (factor * factor))
            }
        }
        return out
    }

    @Test func roundTripsAtFullSizeWithPadding() {
        for milliseconds: Int64 in [sample, 0, 1, (1 << 48) - 1, sample + 33] {
            let (plane, stride) = Self.painted(milliseconds, stride: 1344)
            #expect(PatternClock.read(luma: plane, width: 1280, height: 720, stride: stride) == milliseconds)
        }
    }

    @Test func blocksAreFortyPixelsAtSevenTwentyPAndInTheBottomRows() {
        let blocks = PatternClock.blocks(milliseconds: sample, width: 1280, height: 720)
        #expect(blocks.count == 64)
        #expect(blocks.allSatisfy { $0.width == 40 && $0.height == 40 && $0.y >= 640 })
        #expect(blocks.first?.isWhite == true && blocks.dropFirst().first?.isWhite == false)
    }

    @Test(arguments: [4, 5])
    func survivesTheLowestRungsDownscale(factor: Int) {
        let (plane, _) = Self.painted(sample)
        let small = Self.downscaled(plane, width: 1280, height: 720, factor: factor)
        #expect(PatternClock.read(luma: small, width: 1280 / factor, height: 720 / factor, stride: 1280 / factor) == sample)
    }

    @Test func toleratesNoiseAndFullRangeLevels() {
        var (plane, stride) = Self.painted(sample)
        // Deterministic noise of up to +-40 on every pixel (a linear congruential generator).
        var state: UInt32 = 12345
        for i in plane.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Int(state >> 24) % 81 - 40
            plane[i] = UInt8(clamping: Int(plane[i]) + noise)
        }
        #expect(PatternClock.read(luma: plane, width: 1280, height: 720, stride: stride) == sample)
        // A canvas's grey (0/255) reads the same.
        let full = Self.painted(sample).plane.map { $0 == PatternClock.white ? UInt8(255) : $0 == PatternClock.black ? 0 : $0 }
        #expect(PatternClock.read(luma: full, width: 1280, height: 720, stride: 1280) == sample)
    }

    @Test func aMissingOrDamagedStripReadsAsNothing() {
        let blank = [UInt8](repeating: 128, count: 1280 * 720)
        #expect(PatternClock.read(luma: blank, width: 1280, height: 720, stride: 1280) == nil)
        // One data block flipped: the CRC catches it.
        var (plane, stride) = Self.painted(sample)
        let block = PatternClock.blocks(milliseconds: sample, width: 1280, height: 720)[20]
        for y in block.y..<(block.y + block.height) {
            for x in block.x..<(block.x + block.width) { plane[y * stride + x] = block.isWhite ? PatternClock.black : PatternClock.white }
        }
        #expect(PatternClock.read(luma: plane, width: 1280, height: 720, stride: stride) == nil)
        // A plane too small for its claimed size, and a frame too small for the strip.
        #expect(PatternClock.read(luma: [UInt8](repeating: 0, count: 100), width: 1280, height: 720, stride: 1280) == nil)
        #expect(PatternClock.read(luma: [UInt8](repeating: 0, count: 16), width: 4, height: 4, stride: 4) == nil)
    }
}
