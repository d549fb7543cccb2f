import CFFmpeg
import Foundation
import PipelineCore

extension UnsafeMutablePointer<AVFrame> {
    /// Paints the test pattern's clock (`PatternClock`) for `captured` into this frame, before
    /// it is cloned for the variants. The test pattern is yuv420p (lavfi's testsrc2); a frame in
    /// any other format is left as it is rather than painted wrongly. Returns whether it painted.
    @discardableResult
    func paintPatternClock(captured: Date) -> Bool {
        guard pointee.format == AV_PIX_FMT_YUV420P.rawValue, pointee.width > 0, pointee.height > 0 else { return false }
        // The decoder's buffer may be shared (rawvideo can hand out the packet's): copy first.
        guard av_frame_make_writable(self) >= 0 else { return false }
        let milliseconds = Int64((captured.timeIntervalSince1970 * 1000).rounded())
        let width = Int(pointee.width), height = Int(pointee.height)
        let planes = [pointee.data.0, pointee.data.1, pointee.data.2]
        let strides = [Int(pointee.linesize.0), Int(pointee.linesize.1), Int(pointee.linesize.2)]
        for block in PatternClock.blocks(milliseconds: milliseconds, width: width, height: height) {
            for plane in 0..<3 {
                guard let base = planes[plane], strides[plane] > 0 else { return false }
                // Chroma is subsampled by two both ways and neutral (128): pure grey blocks.
                let shift = plane == 0 ? 0 : 1
                let value: UInt8 = plane > 0 ? 128 : block.isWhite ? PatternClock.white : PatternClock.black
                let x0 = block.x >> shift, x1 = (block.x + block.width + shift) >> shift
                let y0 = block.y >> shift, y1 = (block.y + block.height + shift) >> shift
                for y in y0..<y1 {
                    memset(base + y * strides[plane] + x0, Int32(value), x1 - x0)
                }
            }
        }
        return true
    }
}
