import Foundation
@testable import MediaPipeline
import Testing
import TestSupport

/// The page's reader of the test pattern's clock (`Sources/WatchPage/Resources/pattern-clock.js`)
/// against decoded pixels: frames painted with `PatternClock.blocks` at 1280x720, scaled to
/// 480x270 and 256x144 and encoded by libx264 at a low bit rate (as a rung is), decoded by the
/// ffmpeg CLI to grey, then read in headless Chromium (`--dump-dom` of a file page holding the
/// decoded bytes) from the grey plane and from an RGBA ImageData made of it. Each read must
/// give the painted time and agree with the Swift reader on the same bytes; a frame with one
/// millisecond block flipped must read as null (CRC). About 2 s (one ffmpeg run per size, one
/// browser start).
@Suite struct PatternClockScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/WatchPage/Resources/pattern-clock.js")

    struct Reads: Codable {
        var grey: [Int64?]
        var rgba: [Int64?]
        /// Only the bottom two of 18 block rows, as `readVideo` draws them.
        var strip: [Int64?]
        var flipped: Int64?
    }

    /// Milliseconds of the painted frames: 2026 in steps of about a frame, the top bit of the 48, and 1.
    static let painted: [Int64] = [1_795_000_123_456, 1_795_000_123_489, (1 << 47) + 12_345, 1, 1_795_000_123_523]

    @Test(arguments: [(480, 270), (256, 144)])
    func readsTheClockFromDecodedFrames(width: Int, height: Int) async throws {
        let directory = try makeTemporaryDirectory("pattern-clock-js")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Painted at 720p on a mid-grey card with a gradient, as the pattern's background is busy.
        let (sourceWidth, sourceHeight) = (1280, 720)
        var source = Data()
        for ms in Self.painted {
            var plane = [UInt8](repeating: 0, count: sourceWidth * sourceHeight)
            for y in 0..<sourceHeight { for x in 0..<sourceWidth { plane[y * sourceWidth + x] = UInt8(64 + (x + y) % 128) } }
            for block in PatternClock.blocks(milliseconds: ms, width: sourceWidth, height: sourceHeight) {
                for y in block.y..<(block.y + block.height) {
                    for x in block.x..<(block.x + block.width) { plane[y * sourceWidth + x] = block.isWhite ? PatternClock.white : PatternClock.black }
                }
            }
            source.append(contentsOf: plane)
        }
        let raw = directory + "/painted.gray", encoded = directory + "/encoded.ts", decoded = directory + "/decoded.gray"
        try source.write(to: URL(fileURLWithPath: raw))
        let encode = try await Command.run("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", "\(sourceWidth)x\(sourceHeight)", "-r", "30", "-i", raw,
                                                      "-vf", "scale=\(width):\(height),format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "150k", "-y", encoded], timeout: 60)
        #expect(encode.status == 0, "\(encode.stderr)")
        let decode = try await Command.run("ffmpeg", ["-v", "error", "-i", encoded, "-f", "rawvideo", "-pix_fmt", "gray", "-y", decoded], timeout: 60)
        #expect(decode.status == 0, "\(decode.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: decoded)))
        let frameBytes = width * height
        try #require(bytes.count == frameBytes * Self.painted.count, "decoded \(bytes.count) bytes")
        let swiftReads = (0..<Self.painted.count).map { n in
            PatternClock.read(luma: bytes[(n * frameBytes)..<((n + 1) * frameBytes)], width: width, height: height, stride: width)
        }
        #expect(swiftReads == Self.painted.map { $0 })

        // The first frame again with its first millisecond block (index 2) turned to its opposite.
        var flipped = [UInt8](bytes[0..<frameBytes])
        let block = PatternClock.blocks(milliseconds: Self.painted[0], width: width, height: height)[2]
        for y in block.y..<(block.y + block.height) {
            for x in block.x..<(block.x + block.width) { flipped[y * width + x] = block.isWhite ? PatternClock.black : PatternClock.white }
        }
        #expect(PatternClock.read(luma: flipped, width: width, height: height, stride: width) == nil)

        let page = """
        <!doctype html><html><body><pre id="out"></pre>
        <script src="\(Self.script.absoluteString)"></script>
        <script>
        const w = \(width), h = \(height);
        const all = Uint8Array.from(atob("\(Data(bytes).base64EncodedString())"), (c) => c.charCodeAt(0));
        const flipped = Uint8Array.from(atob("\(Data(flipped).base64EncodedString())"), (c) => c.charCodeAt(0));
        const grey = [], rgba = [], strip = [], stripTop = SidelinePatternClock.stripTop(h);
        for (let n = 0; n < all.length / (w * h); n++) {
          const plane = all.subarray(n * w * h, (n + 1) * w * h);
          grey.push(SidelinePatternClock.read(plane, w, h, w));
          const image = new ImageData(w, h);
          plane.forEach((y, i) => { image.data[4 * i] = y; image.data[4 * i + 1] = y; image.data[4 * i + 2] = y; image.data[4 * i + 3] = 255; });
          rgba.push(SidelinePatternClock.readImageData(image));
          const bottom = new ImageData(w, h - stripTop);
          bottom.data.set(image.data.subarray(4 * w * stripTop));
          strip.push(SidelinePatternClock.readImageData(bottom, h, stripTop));
        }
        document.getElementById("out").textContent = JSON.stringify({ grey, rgba, strip, flipped: SidelinePatternClock.read(flipped, w, h, w) });
        </script></body></html>
        """
        let json = try await HeadlessChromium.output(of: page, in: directory)
        let reads = try JSONDecoder().decode(Reads.self, from: Data(json.utf8))
        #expect(reads.grey == swiftReads, "grey plane: \(reads.grey), Swift: \(swiftReads)")
        #expect(reads.rgba == swiftReads, "ImageData: \(reads.rgba), Swift: \(swiftReads)")
        #expect(reads.strip == swiftReads, "the strip alone: \(reads.strip), Swift: \(swiftReads)")
        #expect(reads.flipped == nil, "a flipped block read as \(String(describing: reads.flipped))")
    }
}
