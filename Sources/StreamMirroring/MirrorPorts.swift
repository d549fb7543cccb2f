import Foundation
import HLSPlaylist

/// One answer of the upstream, body whole.
public struct UpstreamAnswer: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Content-Length as announced, when the body arrives as sent (nil for a chunked or
    /// compressed answer): a segment's check compares it with what arrived.
    public var announcedLength: Int?

    public init(status: Int, body: [UInt8], announcedLength: Int? = nil) {
        self.status = status
        self.body = body
        self.announcedLength = announcedLength
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// What a mirror needs of the network: one GET. The server gives it an HTTP client; tests
/// give it an upstream in memory.
public protocol UpstreamFetching: Sendable {
    /// GETs `url` (asking for gzip when `gzip`, for playlists), its body read whole within
    /// `timeout` seconds. Throws when the upstream cannot be reached or does not answer in time.
    func get(_ url: URL, gzip: Bool, timeout: Double) async throws -> UpstreamAnswer
}

/// What an earlier run of the mirror stored for one variant.
public struct StoredVariant: Sendable, Equatable {
    /// The listing as last written (EVENT form), if any.
    public var listed: MediaPlaylist?
    public var iFrames: MediaPlaylist?
    /// Whole segment files (checked and renamed into place), by name, with their sizes.
    public var files: [String: Int]

    public init(listed: MediaPlaylist? = nil, iFrames: MediaPlaylist? = nil, files: [String: Int] = [:]) {
        self.listed = listed
        self.iFrames = iFrames
        self.files = files
    }
}

/// A held segment as the origin serves it.
public struct HeldSegment: Sendable, Equatable {
    public var size: Int
    public var duration: Double

    public init(size: Int, duration: Double) {
        self.size = size
        self.duration = duration
    }
}

/// One variant's listing as players are to see it.
public struct MirrorView: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// At start, from what an earlier run stored.
        case restored
        /// The listing grew (or its GAP entries or the end changed).
        case grown
        /// The same listing in another form: the mode changed (EVENT, VOD, ended).
        case reshaped
    }

    public var kind: Kind
    /// In the form the mode calls for (`MirrorFreshness.rendition`).
    public var playlist: MediaPlaylist
    public var iFrames: MediaPlaylist?
    /// Segments held and not shown before (all held ones when restored), by name.
    public var newSegments: [String: HeldSegment]
    /// Every entry listed as EXT-X-GAP.
    public var gaps: Set<String>
}

/// Where a mirror's decisions go: its recording on disk (the upstream's layout) and its origin.
public protocol MirrorDestination: Sendable {
    /// The master an earlier run stored, if any.
    func storedMaster() -> MultivariantPlaylist?
    /// What an earlier run stored for `variant`; temporary files of downloads cut short are
    /// removed, never counted.
    func stored(variant: String) throws -> StoredVariant
    /// Stores a checked segment whole (an atomic write: a reader sees all of it or nothing).
    func storeSegment(_ bytes: [UInt8], named name: String, variant: String) async throws
    /// Stores a variant's listing, EVENT form, with its I-frame listing.
    func storePlaylists(_ media: MediaPlaylist, iFrames: MediaPlaylist?, variant: String) async throws
    /// Stores the master and serves it.
    func storeMaster(_ master: MultivariantPlaylist) throws
    /// The origin learns the stream: its title, variants (best first) and target duration.
    func register(title: String, variants: [String], targetDuration: Int)
    /// The origin serves `view` for `variant`.
    func show(_ view: MirrorView, variant: String)
    /// The stream's state as the origin reports it, from its variants' modes.
    func setMode(_ mode: MirrorFreshness.Mode)
    /// The master the origin serves now (rendered), to tell whether a fetched one is new.
    var servedMaster: String? { get }
}

/// What happened, for the log: the mirror decides, the server words it.
public enum MirrorEvent: Sendable, Equatable {
    case restored(variant: String, listed: Int, files: Int)
    /// A reload or download failed; `failures` in a row (the first of an outage is worth a warning).
    case upstreamFailed(variant: String, reason: String, failures: Int)
    case upstreamBack(variant: String, afterFailures: Int)
    /// The upstream recorded anew under the same name: following stops.
    case conflict(variant: String, reason: String)
    /// The upstream no longer has a segment it listed (404/410): listed here as EXT-X-GAP.
    case segmentLost(variant: String, url: String, status: Int)
    case modeChanged(variant: String, mode: MirrorFreshness.Mode, listed: Int)
    /// Downloads stored but not yet listed when a round ended (listed at the next reload).
    case unpublishedKept(variant: String, count: Int)
    /// The upstream's master could not be read yet (the first failure of a run of them).
    case masterUnavailable(reason: String)
    case variantsChanged(upstream: [String], followed: [String])
}

/// A mirror that cannot follow its upstream at all (not a Sideline master, or no such variant).
public struct MirrorRefusal: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
