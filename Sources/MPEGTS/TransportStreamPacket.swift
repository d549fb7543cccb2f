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
    public let hasPayload: Bool
    /// Offset of the payload, after the adaptation field.
    public let payload: Int

    /// The packet at `start`; nil without a whole packet or its sync byte there.
    public init?(_ bytes: [UInt8], at start: Int) {
        guard start + Self.size <= bytes.count, bytes[start] == Self.syncByte else { return nil }
        self.start = start
        pid = Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
        unitStart = bytes[start + 1] & 0x40 != 0
        let control = (bytes[start + 3] >> 4) & 0x3
        hasAdaptationField = control & 0x2 != 0
        hasPayload = control & 0x1 != 0
        payload = hasAdaptationField ? start + 5 + Int(bytes[start + 4]) : start + 4
    }

    /// Where the packet's 4-bit continuity counter is (low nibble of this byte).
    public var continuityCounterByte: Int { start + 3 }

    /// Where the PCR is, if the adaptation field carries one (§2.4.3.4).
    public func pcrOffset(in bytes: [UInt8]) -> Int? {
        guard hasAdaptationField, bytes[start + 4] > 0, bytes[start + 5] & 0x10 != 0 else { return nil }
        return start + 6
    }

    /// Where a PES header with PTS/DTS flags begins, if this packet starts one (§2.4.3.7):
    /// `00 00 01`, a stream id that has the optional header, and room for PTS and DTS.
    public func pesHeaderOffset(in bytes: [UInt8]) -> Int? {
        guard unitStart, hasPayload, payload + 14 <= start + Self.size,
              bytes[payload] == 0, bytes[payload + 1] == 0, bytes[payload + 2] == 1,
              Self.hasOptionalHeader(streamID: bytes[payload + 3]) else { return nil }
        return payload
    }

    /// Stream ids without the optional PES header (§2.4.3.7, Table 2-21): program stream map,
    /// padding, private stream 2, ECM, EMM, directory, DSMCC, H.222.1 type E.
    static func hasOptionalHeader(streamID id: UInt8) -> Bool {
        ![0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xFF, 0xF2, 0xF8].contains(id)
    }
}
