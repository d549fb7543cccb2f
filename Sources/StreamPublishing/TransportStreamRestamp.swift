/// Moves an MPEG-TS segment to another place on the timeline by rewriting its timestamps in
/// place: PTS and DTS in every PES header, PCR in every adaptation field (ISO/IEC 13818-1
/// §2.4.3.4, §2.4.3.7). A stand-in card is encoded once per variant at media time 0 and
/// restamped for each slot it fills, so a player sees timestamps that continue the stream's
/// own instead of starting again.
///
/// Continuity counters are advanced too: consecutive copies of the same bytes would otherwise
/// repeat the same counters, which decoders report as lost packets.
public enum TransportStreamRestamp {
    public static let packetSize = 188
    /// 2^33: PTS, DTS and the PCR base wrap at this many 90 kHz ticks (26.5 hours).
    static let wrap: Int64 = 1 << 33

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
    public static func restamp(_ bytes: [UInt8], by offset: Int64, copy: Int = 0) throws(Failure) -> [UInt8] {
        var out = bytes
        let packets = bytes.count / packetSize
        var payloadPackets: [Int: Int] = [:]
        if copy > 0 {
            for index in 0..<packets where bytes[index * packetSize + 3] & 0x10 != 0 {
                payloadPackets[pid(bytes, index * packetSize), default: 0] += 1
            }
        }
        for index in 0..<packets {
            let start = index * packetSize
            guard out[start] == 0x47 else { throw .notTransportStream(offset: start) }
            let control = (out[start + 3] >> 4) & 0x3
            if copy > 0, control & 0x1 != 0, let count = payloadPackets[pid(out, start)] {
                let counter = (Int(out[start + 3] & 0x0F) + copy * count) & 0x0F
                out[start + 3] = (out[start + 3] & 0xF0) | UInt8(counter)
            }
            var payload = start + 4
            if control & 0x2 != 0 {
                let length = Int(out[start + 4])
                if length > 0, out[start + 5] & 0x10 != 0, start + 11 < start + packetSize {
                    shiftPCR(&out, at: start + 6, by: offset)
                }
                payload = start + 5 + length
            }
            let unitStart = out[start + 1] & 0x40 != 0
            guard unitStart, control & 0x1 != 0, payload + 14 <= start + packetSize else { continue }
            // PES: 00 00 01, stream id, length (2), flags (2), header length, then PTS/DTS.
            guard out[payload] == 0, out[payload + 1] == 0, out[payload + 2] == 1, hasOptionalHeader(streamID: out[payload + 3]) else { continue }
            let flags = out[payload + 7] >> 6
            if flags & 0x2 != 0 { shiftTimestamp(&out, at: payload + 9, by: offset) }
            if flags == 0x3 { shiftTimestamp(&out, at: payload + 14, by: offset) }
        }
        return out
    }

    /// The first PTS of the first PES with one, in 90 kHz ticks (for tests and checks).
    public static func firstPTS(_ bytes: [UInt8]) -> Int64? {
        var start = 0
        while start + packetSize <= bytes.count {
            defer { start += packetSize }
            let control = (bytes[start + 3] >> 4) & 0x3
            let payload = control & 0x2 != 0 ? start + 5 + Int(bytes[start + 4]) : start + 4
            guard bytes[start + 1] & 0x40 != 0, control & 0x1 != 0, payload + 14 <= start + packetSize,
                  bytes[payload] == 0, bytes[payload + 1] == 0, bytes[payload + 2] == 1,
                  hasOptionalHeader(streamID: bytes[payload + 3]), bytes[payload + 7] & 0x80 != 0 else { continue }
            return readTimestamp(bytes, at: payload + 9)
        }
        return nil
    }

    private static func pid(_ bytes: [UInt8], _ start: Int) -> Int {
        Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
    }

    /// Stream ids without the optional PES header (§2.4.3.7, Table 2-21): program stream map,
    /// padding, private stream 2, ECM, EMM, directory, DSMCC, H.222.1 type E.
    private static func hasOptionalHeader(streamID id: UInt8) -> Bool {
        ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(id)
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
