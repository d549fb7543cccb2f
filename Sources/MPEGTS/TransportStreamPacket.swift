/// One 188-byte MPEG-TS packet's header, read in place (ISO/IEC 13818-1 §2.4.3.2): the fields
/// every TS rewrite of Sideline needs (restamping stand-ins, putting PAT and PMT first).
public struct TransportStreamPacket: Sendable, Equatable {
    public static let size = 188
    public static let syncByte: UInt8 = 0x47

    /// Offset of the packet in its segment.
    public let start: Int
    public let pid: Int
    /// payload_unit_start_indicator: a PES packet or a table section begins here.
    public let unitStart: Bool
    public let hasAdaptationField: Bool
    /// Whether the packet carries payload bytes: its adaptation_field_control says so and
    /// the adaptation field leaves room for at least one.
    public let hasPayload: Bool
    /// Offset of the payload, after the adaptation field; at most the packet's end.
    public let payload: Int

    /// The packet at `start`; nil without a whole packet or its sync byte there.
    public init?(_ bytes: [UInt8], at start: Int) {
        guard start + Self.size <= bytes.count, bytes[start] == Self.syncByte else { return nil }
        self.start = start
        pid = Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
        unitStart = bytes[start + 1] & 0x40 != 0
        let control = (bytes[start + 3] >> 4) & 0x3
        hasAdaptationField = control & 0x2 != 0
        // adaptation_field_length is at most 183 (§2.4.3.5), but a byte can say 255: a field
        // that runs past the packet leaves it without payload rather than pointing past it.
        let end = start + Self.size
        let payloadStart = hasAdaptationField ? start + 5 + Int(bytes[start + 4]) : start + 4
        payload = min(payloadStart, end)
        hasPayload = control & 0x1 != 0 && payloadStart < end
    }

    /// One past the packet's last byte.
    public var end: Int { start + Self.size }

    /// Where the packet's 4-bit continuity counter is (low nibble of this byte).
    public var continuityCounterByte: Int { start + 3 }

    /// Where the PCR is, if the adaptation field carries one (§2.4.3.4): its flags byte and
    /// the PCR's six bytes must lie within the field's stated length.
    public func pcrOffset(in bytes: [UInt8]) -> Int? {
        guard hasAdaptationField, bytes[start + 4] >= 7, bytes[start + 5] & 0x10 != 0 else { return nil }
        return start + 6
    }

    /// Whether the adaptation field says the packet starts a random access point
    /// (random_access_indicator, §2.4.3.5).
    public func isRandomAccess(in bytes: [UInt8]) -> Bool {
        hasAdaptationField && bytes[start + 4] > 0 && bytes[start + 5] & 0x40 != 0
    }

    /// Where a PES header with PTS/DTS flags begins, if this packet starts one (§2.4.3.7):
    /// `00 00 01`, a stream id that has the optional header, and room for its flags and a PTS
    /// (a DTS, 5 bytes more, is the reader's to check: `timestampOffsets`).
    public func pesHeaderOffset(in bytes: [UInt8]) -> Int? {
        guard unitStart, hasPayload, payload + 14 <= end,
              bytes[payload] == 0, bytes[payload + 1] == 0, bytes[payload + 2] == 1,
              Self.hasOptionalHeader(streamID: bytes[payload + 3]) else { return nil }
        return payload
    }

    /// Where the PES header's PTS and DTS are (§2.4.3.7, PTS_DTS_flags), each only when the
    /// flags announce it and all the announced timestamps lie within this packet. Nil when this
    /// packet starts no PES header or the timestamps it announces do not fit.
    public func timestampOffsets(in bytes: [UInt8]) -> (pts: Int?, dts: Int?)? {
        guard let pes = pesHeaderOffset(in: bytes) else { return nil }
        let flags = bytes[pes + 7] >> 6
        let pts = flags & 0x2 != 0 ? pes + 9 : nil
        let dts = flags == 0x3 ? pes + 14 : nil
        guard (dts ?? pts ?? pes) + 5 <= end else { return nil }
        return (pts, dts)
    }

    /// Where the elementary stream's bytes begin in this packet: after the PES header's
    /// PES_header_data_length bytes, or the packet's end when that length runs past it.
    public func elementaryStreamStart(in bytes: [UInt8]) -> Int? {
        guard let pes = pesHeaderOffset(in: bytes) else { return nil }
        return min(pes + 9 + Int(bytes[pes + 8]), end)
    }

    /// Stream ids without the optional PES header (§2.4.3.7, Table 2-21): program stream map,
    /// padding, private stream 2, ECM, EMM, directory, DSMCC, H.222.1 type E.
    static func hasOptionalHeader(streamID id: UInt8) -> Bool {
        ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(id)
    }
}
