import HLSPlaylist

/// What the recorder writes for a planned entry: which bytes, and the EXTINF they carry.
/// Pure: the sibling's recorded entry and the slot's start time are looked up by the caller.
public enum EntryMaterial: Sendable, Equatable {
    /// The segment the pipeline finished for this slot (staged before the core listed it).
    case staged
    /// A failed variant's slot: the segment file `uri` of `variant`, which listed the same slot.
    case siblingFile(variant: String, uri: String, duration: Double)
    /// The variant's stand-in, its timestamps moved by `offset` (90 kHz ticks) to the slot's start;
    /// `copy` counts stand-ins in a row, so continuity counters run on across copies.
    case standIn(offset: Int64, copy: Int)
    /// The variant's published parts of the slot, joined (the writer holds their bytes).
    case listedParts
    /// EXT-X-GAP: no file. Also what a sibling fill becomes when the sibling has no file for
    /// the slot (it is a GAP there too).
    case gap

    /// `siblingEntry`: the entry sibling `variant` recorded at the index this entry will take
    /// (variants stay aligned, so the same index is the same slot); `slotStart`: a slot's start
    /// on the media timeline, in seconds.
    public static func of(_ entry: PlannedEntry, siblingEntry: (String) -> MediaSegment?, slotStart: (Int) -> Double) -> EntryMaterial {
        switch entry.content {
        case .real:
            return .staged
        case .listedParts:
            return .listedParts
        case let .sibling(name):
            guard let source = siblingEntry(name), !source.gap else { return .gap }
            return .siblingFile(variant: name, uri: source.uri, duration: source.duration)
        case let .standIn(copy):
            return .standIn(offset: Int64((slotStart(entry.slot) * 90_000).rounded()), copy: copy)
        case .gap:
            return .gap
        }
    }
}
