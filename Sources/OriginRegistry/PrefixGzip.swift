import SidelineZlib
import NIOCore

/// A gzip member (RFC 1952) made of two deflate runs one after another: a prefix deflated once
/// and kept, and a tail deflated per version.
///
/// Why: with parts (Low-Latency HLS) a variant's live playlist gets a new version every part
/// (0.2 s), and each differs from the one before only after its last entry (the parts of the
/// segment being made, the hint, the reports). At hour 3 the playlist is 421 KB and gzip at
/// level 9 takes 8 ms (Docs/benchmarks.md, "Playlist rendering with markers"): five versions a
/// second of each of three rungs would be 12% of a core. The prefix, everything up to and
/// including the last entry, changes only when a segment is listed; it is deflated then, at
/// level 9, and ended with a sync flush (byte-aligned, not final), so a second raw deflate run
/// for the tail can follow it: a decoder reads the blocks in order, and the tail's blocks refer
/// to nothing before them. The CRC-32 and length of the whole are combined from the two parts'
/// (`crc32_combine`), without reading the prefix again.
struct PrefixGzip: Sendable {
    /// The prefix's deflate blocks, ended by a sync flush.
    let deflated: [UInt8]
    let crc: UInt
    let length: Int

    /// The prefix deflated at level 9. Nil when zlib fails (then the caller compresses whole).
    init?(_ prefix: String) {
        var text = prefix
        guard let made = text.withUTF8({ bytes -> (deflated: [UInt8], crc: UInt)? in
            guard let deflated = Self.deflate(bytes, level: 9, finish: false) else { return nil }
            return (deflated, crc32(0, bytes.baseAddress, uInt(bytes.count)))
        }) else { return nil }
        deflated = made.deflated
        crc = made.crc
        length = prefix.utf8.count
    }

    /// The gzip member of the prefix followed by `tail`. Nil when zlib fails.
    func member(tail: String) -> ByteBuffer? {
        var text = tail
        return text.withUTF8 { bytes -> ByteBuffer? in
            // The tail is a few hundred bytes: level 6 costs microseconds.
            guard let deflated = Self.deflate(bytes, level: 6, finish: true) else { return nil }
            let tailCRC = crc32(0, bytes.baseAddress, uInt(bytes.count))
            let crc = crc32_combine(self.crc, tailCRC, off_t(bytes.count))
            let total = UInt32(truncatingIfNeeded: length &+ bytes.count)
            var buffer = ByteBuffer()
            buffer.reserveCapacity(10 + self.deflated.count + deflated.count + 8)
            // ID1 ID2, deflate, no flags, no time, no extra flags, OS unknown.
            buffer.writeBytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255])
            buffer.writeBytes(self.deflated)
            buffer.writeBytes(deflated)
            buffer.writeInteger(UInt32(truncatingIfNeeded: crc), endianness: .little)
            buffer.writeInteger(total, endianness: .little)
            return buffer
        }
    }

    /// Raw deflate (no zlib or gzip wrapper) of `bytes`: ended by a sync flush, or finished.
    private static func deflate(_ bytes: UnsafeBufferPointer<UInt8>, level: Int32, finish: Bool) -> [UInt8]? {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        // What deflate can need at most, and the flush's few bytes.
        let capacity = Int(deflateBound(&stream, uLong(bytes.count))) + 16
        var output = [UInt8](repeating: 0, count: capacity)
        let status = output.withUnsafeMutableBufferPointer { out -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress)
            stream.avail_in = uInt(bytes.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            return SidelineZlib.deflate(&stream, finish ? Z_FINISH : Z_SYNC_FLUSH)
        }
        guard finish ? status == Z_STREAM_END : status == Z_OK, stream.avail_in == 0 else { return nil }
        output.removeLast(Int(stream.avail_out))
        return output
    }
}
