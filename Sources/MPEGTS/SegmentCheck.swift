/// The checks a mirror makes on a downloaded segment before it is stored and listed: cheap
/// ones, over bytes already in memory. Whole MPEG-TS packets, each with its sync byte, and
/// the PAT first (every Sideline segment starts with PAT then PMT, so a player can start
/// decoding it on its own). Decoding every frame would cost as much as playing it; these
/// checks catch what goes wrong on a network (a truncated body, an HTML error page, a
/// proxy's substitute).
public enum SegmentCheck {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case sizeMismatch(announced: Int, received: Int)
        case empty
        case partialPacket(size: Int)
        case missingSyncByte(offset: Int)
        case notStartingWithProgramTable(pid: Int)

        public var description: String {
            switch self {
            case let .sizeMismatch(announced, received): "Content-Length announced \(announced) bytes, \(received) arrived"
            case .empty: "the segment is empty"
            case let .partialPacket(size): "\(size) bytes is not a whole number of 188-byte MPEG-TS packets"
            case let .missingSyncByte(offset): "no MPEG-TS sync byte (0x47) at byte \(offset)"
            case let .notStartingWithProgramTable(pid): "the first packet is PID \(pid), not the PAT (PID 0)"
            }
        }
    }

    /// Nil when `bytes` pass; `announced` is the Content-Length, when the response had one.
    public static func verify(_ bytes: [UInt8], announced: Int?) -> Failure? {
        if let announced, announced != bytes.count { return .sizeMismatch(announced: announced, received: bytes.count) }
        if bytes.isEmpty { return .empty }
        if bytes.count % TransportStreamPacket.size != 0 { return .partialPacket(size: bytes.count) }
        for offset in stride(from: 0, to: bytes.count, by: TransportStreamPacket.size) where bytes[offset] != TransportStreamPacket.syncByte {
            return .missingSyncByte(offset: offset)
        }
        // Whole packets with sync bytes were just checked, so the first one reads.
        guard let first = TransportStreamPacket(bytes, at: 0) else { return .missingSyncByte(offset: 0) }
        return first.pid == 0 ? nil : .notStartingWithProgramTable(pid: first.pid)
    }
}
