/// The test pattern's machine-readable clock: the capture time (UTC milliseconds since the
/// Unix epoch) painted as two rows of 32 black and white blocks across the bottom of the
/// frame, so a program reads it back from decoded pixels (ffmpeg's raw frames, a canvas)
/// without OCR.
///
/// The layout is relative to the frame: each block is 1/32 of the width and 1/18 of the
/// height (40x40 at 1280x720, still 8x8 at 256x144), so it survives every rung's downscale
/// and a low bit rate. Block i (row-major, the top row first) carries bit i of:
/// 2 start blocks (white, black), 48 bits of milliseconds (most significant first),
/// a CRC-8 of those 6 bytes, and 6 alternating end blocks (white, black, ...).
/// The reader takes its threshold from the start blocks, so it works on limited-range luma
/// (16/235) and on full-range grey (0/255) alike.
public enum PatternClock {
    public static let columns = 32
    public static let rows = 2
    /// Block rows per frame height: the strip is the bottom `rows` of them.
    static let heightDivisions = 18
    public static let blockCount = columns * rows
    static let millisecondBits = 48
    static let crcBits = 8
    public static let black: UInt8 = 16
    public static let white: UInt8 = 235

    /// One block to paint: its pixel rectangle and whether it is white.
    public struct Block: Equatable, Sendable {
        public let x: Int, y: Int, width: Int, height: Int
        public let isWhite: Bool
    }

    /// The 64 bits for `milliseconds` (only the low 48 bits are kept; enough until 10889).
    public static func bits(milliseconds: Int64) -> [Bool] {
        let value = UInt64(bitPattern: milliseconds) & ((1 << UInt64(millisecondBits)) - 1)
        var bits = [true, false]
        for shift in stride(from: millisecondBits - 1, through: 0, by: -1) { bits.append((value >> UInt64(shift)) & 1 == 1) }
        let crc = crc8(value)
        for shift in stride(from: crcBits - 1, through: 0, by: -1) { bits.append((crc >> UInt8(shift)) & 1 == 1) }
        while bits.count < blockCount { bits.append(bits.count % 2 == 0) }
        return bits
    }

    /// The blocks to paint into a `width` x `height` frame for `milliseconds`.
    public static func blocks(milliseconds: Int64, width: Int, height: Int) -> [Block] {
        bits(milliseconds: milliseconds).enumerated().map { index, isWhite in
            let (x0, x1, y0, y1) = rectangle(of: index, width: width, height: height)
            return Block(x: x0, y: y0, width: x1 - x0, height: y1 - y0, isWhite: isWhite)
        }
    }

    /// Reads the milliseconds back from a luma plane (`stride` bytes per row, at least
    /// `width`), or nil when the strip is missing, too flat, or fails its start, end or CRC check.
    public static func read<Plane: RandomAccessCollection>(luma: Plane, width: Int, height: Int, stride: Int) -> Int64?
    where Plane.Element == UInt8, Plane.Index == Int {
        guard width >= columns, height >= heightDivisions, stride >= width,
              luma.count >= stride * (height - 1) + width else { return nil }
        let levels = (0..<blockCount).map { index -> Int in
            let (x0, x1, y0, y1) = rectangle(of: index, width: width, height: height)
            // The centre half of the block, away from edges the scaler and encoder blur.
            let insetX = (x1 - x0) / 4, insetY = (y1 - y0) / 4
            var sum = 0, count = 0
            for y in (y0 + insetY)..<max(y0 + insetY + 1, y1 - insetY) {
                let row = luma.startIndex + y * stride
                for x in (x0 + insetX)..<max(x0 + insetX + 1, x1 - insetX) {
                    sum += Int(luma[row + x])
                    count += 1
                }
            }
            return sum / count
        }
        // The start blocks give the threshold: white must clearly stand above black.
        guard levels[0] - levels[1] >= 48 else { return nil }
        let threshold = (levels[0] + levels[1]) / 2
        let read = levels.map { $0 > threshold }
        var value: UInt64 = 0
        for bit in read[2..<(2 + millisecondBits)] { value = value << 1 | (bit ? 1 : 0) }
        guard read == bits(milliseconds: Int64(value)) else { return nil }
        return Int64(value)
    }

    /// Block `index`'s pixel bounds: [x0, x1) x [y0, y1).
    static func rectangle(of index: Int, width: Int, height: Int) -> (Int, Int, Int, Int) {
        let column = index % columns
        let row = heightDivisions - rows + index / columns
        return (column * width / columns, (column + 1) * width / columns,
                row * height / heightDivisions, (row + 1) * height / heightDivisions)
    }

    /// CRC-8 (polynomial 0x07) of the 6 bytes of a 48-bit value, most significant first.
    static func crc8(_ value: UInt64) -> UInt8 {
        var crc: UInt8 = 0
        for shift in stride(from: 40, through: 0, by: -8) {
            crc ^= UInt8(truncatingIfNeeded: value >> UInt64(shift))
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
