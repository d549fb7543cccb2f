/// Moves an MPEG-TS segment to another place on the timeline by rewriting its timestamps in
/// place: PTS and DTS in every PES header, PCR in every adaptation field (ISO/IEC 13818-1
/// §2.4.3.4, §2.4.3.7). A stand-in card is encoded once per variant at media time 0 and
/// restamped for each slot it fills, so a player sees timestamps that continue the stream's
/// own instead of starting again.
///
/// Continuity counters are advanced too: consecutive copies of the same bytes would otherwise
/// repeat the same counters, which decoders report as lost packets.
public enum TransportStreamRestamp {
    /// 2^33: PTS, DTS and the PCR base wrap at this many 90 kHz ticks (26.5 hours).
    static let wrap: Int64 = 1 << 33

    /// `timestamp` moved by `offset` ticks, as `restamp` moves every one: modulo 2^33.
    public static func shifted(_ timestamp: Int64, by offset: Int64) -> Int64 {
        ((timestamp &+ offset % wrap) % wrap + wrap) % wrap
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notTransportStream(offset: Int)
        public var description: String {
            switch self {
            case let .notTransportStream(offset): "not an MPEG-TS segment: no sync byte 0x47 at byte \(offset)"
            }
        }
    }

    /// Returns `bytes` with every timestamp moved by `offset` ticks of 90 kHz and, for the
    /// `copy`-th copy in a row of the same bytes, every PID's continuity counter advanced by
    /// `copy` times its packet count, so the counters run on from the previous copy.
    ///
    /// Any `offset` and `copy` are taken: timestamps wrap at 2^33 and counters at 16, so both
    /// are reduced to those first and no sum can overflow.
    public static func restamp(_ bytes: [UInt8], by offset: Int64, copy: Int = 0) throws(Failure) -> [UInt8] {
        let offset = (offset % wrap + wrap) % wrap
        let copy = copy & 0x0F
        var packets: [TransportStreamPacket] = []
        for start in stride(from: 0, to: bytes.count - TransportStreamPacket.size + 1, by: TransportStreamPacket.size) {
            guard let packet = TransportStreamPacket(bytes, at: start) else { throw .notTransportStream(offset: start) }
            packets.append(packet)
        }
        var payloadPackets: [Int: Int] = [:]
        for packet in packets where packet.hasPayload { payloadPackets[packet.pid, default: 0] += 1 }
        var out = bytes
        for packet in packets {
            if copy > 0, packet.hasPayload, let count = payloadPackets[packet.pid] {
                let at = packet.continuityCounterByte
                out[at] = (out[at] & 0xF0) | UInt8((Int(out[at] & 0x0F) + copy * (count & 0x0F)) & 0x0F)
            }
            if let pcr = packet.pcrOffset(in: out) { shiftPCR(&out, at: pcr, by: offset) }
            // PES header: flags at +7 say whether PTS (at +9) and DTS (at +14) follow; a header
            // whose timestamps would run past its packet is left as it is.
            guard let (pts, dts) = packet.timestampOffsets(in: out) else { continue }
            if let pts { shiftTimestamp(&out, at: pts, by: offset) }
            if let dts { shiftTimestamp(&out, at: dts, by: offset) }
        }
        return out
    }

    /// The first PTS of the first PES with one, in 90 kHz ticks (for tests and checks).
    public static func firstPTS(_ bytes: [UInt8]) -> Int64? {
        for start in stride(from: 0, to: bytes.count - TransportStreamPacket.size + 1, by: TransportStreamPacket.size) {
            guard let packet = TransportStreamPacket(bytes, at: start), let pts = packet.timestampOffsets(in: bytes)?.pts else { continue }
            return readTimestamp(bytes, at: pts)
        }
        return nil
    }

    static func readTimestamp(_ bytes: [UInt8], at i: Int) -> Int64 {
        (Int64(bytes[i] >> 1) & 0x7) << 30 | Int64(bytes[i + 1]) << 22 | (Int64(bytes[i + 2]) >> 1) << 15
            | Int64(bytes[i + 3]) << 7 | Int64(bytes[i + 4]) >> 1
    }

    /// A 33-bit timestamp in 5 bytes with marker bits; the 4-bit prefix is kept.
    private static func shiftTimestamp(_ bytes: inout [UInt8], at i: Int, by offset: Int64) {
        let value = ((readTimestamp(bytes, at: i) + offset) % wrap + wrap) % wrap
        bytes[i] = (bytes[i] & 0xF0) | UInt8((value >> 29) & 0x0E) | 0x01
        bytes[i + 1] = UInt8((value >> 22) & 0xFF)
        bytes[i + 2] = UInt8((value >> 14) & 0xFE) | 0x01
        bytes[i + 3] = UInt8((value >> 7) & 0xFF)
        bytes[i + 4] = UInt8((value << 1) & 0xFE) | 0x01
    }

    /// PCR: a 33-bit base (90 kHz), 6 reserved bits, a 9-bit extension (27 MHz remainder).
    private static func shiftPCR(_ bytes: inout [UInt8], at i: Int, by offset: Int64) {
        var base = Int64(bytes[i]) << 25 | Int64(bytes[i + 1]) << 17 | Int64(bytes[i + 2]) << 9 | Int64(bytes[i + 3]) << 1 | Int64(bytes[i + 4]) >> 7
        base = ((base + offset) % wrap + wrap) % wrap
        bytes[i] = UInt8((base >> 25) & 0xFF)
        bytes[i + 1] = UInt8((base >> 17) & 0xFF)
        bytes[i + 2] = UInt8((base >> 9) & 0xFF)
        bytes[i + 3] = UInt8((base >> 1) & 0xFF)
        bytes[i + 4] = (bytes[i + 4] & 0x7F) | UInt8((base & 0x1) << 7)
    }
}
