/// What a media playlist uploaded makes of the ingest (`IngestLedger.playlistReceived`).
public enum IngestPlaylistReceipt: Sendable, Equatable {
    /// The received segments it makes ready, in playlist order (none: nothing new yet).
    case listed([IngestLedger.Listing])
    /// It begins a push session, and nothing was kept: begin one on the publisher and give the
    /// playlist again with the slot its first segment takes.
    case beginsSession
}

extension IngestLedger {
    public typealias PlaylistReceipt = IngestPlaylistReceipt
}
