import Foundation
import HLSPlaylist
import IngestPolicy
import MPEGTS
import OriginPolicy

/// What a pushed stream does with each upload, decided over plain values: events in (a segment
/// uploaded and then kept, a media playlist, a master), actions out (keep this file, keep the
/// session, publish these listings, keep and take this ladder, note these formats, answer or
/// refuse). `PushedStream` (StreamServices) carries the actions out on disk and into the
/// stream's publisher; every decision is here, tested in milliseconds (`PushedStreamCoreTests`).
/// Pure.
///
/// It holds the ingest's ledger (`IngestLedger`: sessions, slots, timestamps), what each
/// variant's master declared it carries and what its last segment carried (`DeclaredCodecs`),
/// and the stream's bounds (`IngestBounds`).
public struct PushedStreamCore: Sendable {
    public struct Settings: Sendable {
        /// The ledger's: the ladder served, the slot grid, the timestamp origin.
        public var ledger: IngestLedger.Settings
        public var bounds: IngestBounds
        /// Whether the stream's config names its ladder (a master is then held to it), or the
        /// stream takes the one its encoder declares.
        public var ladderConfigured: Bool
        /// The ladder served now, as rungs (the config's, or the one taken before).
        public var served: [DeclaredRung]
        /// The stream's frame rate, for a master that gives none.
        public var frameRate: Double
        /// Where the stream keeps its recording, for the 409 that says how to start anew.
        public var streamDirectory: String
        /// The media playlist's file name in the layout (`index.m3u8`).
        public var playlistName: String

        public init(ledger: IngestLedger.Settings, bounds: IngestBounds, ladderConfigured: Bool, served: [DeclaredRung], frameRate: Double,
                    streamDirectory: String, playlistName: String) {
            self.ledger = ledger
            self.bounds = bounds
            self.ladderConfigured = ladderConfigured
            self.served = served
            self.frameRate = frameRate
            self.streamDirectory = streamDirectory
            self.playlistName = playlistName
        }
    }

    /// What the stream's shell knows that the core does not keep: facts of the disk and the
    /// publisher, read when an upload comes.
    public struct Facts: Sendable {
        /// The recording holds an entry that is no fill (`PushedStream.holdsFootage`).
        public var recordingHoldsFootage: Bool
        /// A ladder declared by an encoder was taken since the server started (each take encodes
        /// a stand-in per rung; after a restart an encoder may declare anew while no footage exists).
        public var tookDeclaredLadder: Bool

        public init(recordingHoldsFootage: Bool = false, tookDeclaredLadder: Bool = false) {
            self.recordingHoldsFootage = recordingHoldsFootage
            self.tookDeclaredLadder = tookDeclaredLadder
        }
    }

    /// What the shell does, in order.
    public enum Action: Sendable, Equatable {
        /// Write the segment's bytes, restamped by `stampedBy` (the open session's shift; 0 before
        /// one opens: as pushed), under its pushed name among the received (atomically), then
        /// tell the core (`segmentKept`). A segment listed in the session it was stamped for is
        /// then linked into the recording as it is: written once.
        case keepSegment(variant: String, name: String, stampedBy: Int64)
        /// Keep what a restart must remember (before anything is listed).
        case keepSession(IngestLedger.Persisted)
        /// Publish each listed segment, in order: its received file as it is when its `restamp`
        /// is 0 (linked into the recording), else read back and restamped; then `publishReceipt`.
        case publish(variant: String, [IngestLedger.Listing])
        /// Keep the declared ladder (atomically), answer, then set up the stream for it off the
        /// request, with these formats and rungs left out.
        case takeLadder([DeclaredRung], formats: [NotedFormat], notPushed: [String])
        /// What the master says each rung is, for the master players get.
        case noteFormats([NotedFormat])
        /// Rungs the encoder leaves out: filled like a failed variant's until they come again.
        case notPushed([String])
        /// The playlist begins a push session, and nothing was decided: begin one on the stream's
        /// publisher (`StreamPublisher.beginPushSession`) and upload the playlist to the core
        /// again with the slot that gave (`playlistUploaded(sessionSlot:)`).
        case beginSession
        /// The answer: `created` for a segment kept under a new name (201), else 200.
        case answer(created: Bool, message: String)
        case refuse(Refusal)
    }

    /// One rung's format as a master states it.
    public struct NotedFormat: Sendable, Equatable {
        public var variant: String
        public var format: VariantFormat

        public init(variant: String, format: VariantFormat) {
            self.variant = variant
            self.format = format
        }
    }

    public private(set) var ledger: IngestLedger
    public let settings: Settings
    /// CODECS each variant's master declared.
    public private(set) var declared: [String: [String]]
    /// What the last segment taken of each variant carried.
    public private(set) var carried: [String: PushedSegmentCheck.Inspection] = [:]

    /// `ledger`: restored from what an earlier process kept; `declaredLadder`: the ladder taken
    /// before, whose CODECS the segments are held to from the start.
    public init(settings: Settings, ledger: IngestLedger, declaredLadder: [DeclaredRung]? = nil) {
        self.settings = settings
        self.ledger = ledger
        self.declared = Dictionary((declaredLadder ?? []).map { ($0.name, $0.codecs) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Segments

    /// A segment uploaded, checked as MPEG-TS (`PushedSegmentCheck`): refused, or to be kept.
    public func segmentUploaded(variant: String, name: String, inspection: PushedSegmentCheck.Inspection) -> Action {
        if let rejection = ledger.check(segment: name, of: variant, inspection: inspection) { return .refuse(refusal(rejection)) }
        if let codecs = declared[variant], let mismatch = DeclaredCodecs.mismatch(declared: codecs, inspection: inspection) {
            return .refuse(.malformed("segment '\(name)' of variant '\(variant)': \(mismatch); upload a master whose CODECS name what the segments carry").forOperators())
        }
        let pending = ledger.settings.variants.reduce(0) { $0 + ledger.pending($1).count }
        if let refused = settings.bounds.refusal(pendingSegments: pending, replacing: ledger.pending(variant).contains(name)) { return .refuse(refused) }
        return .keepSegment(variant: variant, name: name, stampedBy: ledger.openShift ?? 0)
    }

    /// The segment `segmentUploaded` said to keep is kept: it waits for a playlist to list it.
    /// `stampedBy`: what `keepSegment` said.
    public mutating func segmentKept(variant: String, name: String, inspection: PushedSegmentCheck.Inspection, stampedBy: Int64) -> Action {
        switch ledger.segmentReceived(variant: variant, name: name, inspection: inspection, stamped: stampedBy) {
        case let .success(replaced):
            carried[variant] = inspection
            return .answer(created: !replaced, message: "received \(name) (\(DecimalFormat.compact(inspection.duration)) s); listed once a playlist lists it")
        case let .failure(rejection):
            return .refuse(refusal(rejection))
        }
    }

    // MARK: Playlists

    /// A media playlist of `variant` uploaded: what it makes ready, in playlist order, after the
    /// session to keep when it changed; or `.beginSession` alone, while `sessionSlot` is nil, for a
    /// playlist that begins a push session (`IngestLedger.playlistReceived`).
    public mutating func playlistUploaded(variant: String, body: [UInt8], now: Date, sessionSlot: Int? = nil) -> [Action] {
        guard let text = String(validating: body, as: UTF8.self) else {
            return [.refuse(.malformed("the playlist of variant '\(variant)' is not UTF-8 text").forOperators())]
        }
        let before = ledger.persisted
        let decided = ledger.playlistReceived(variant: variant, text: text, now: now, sessionSlot: sessionSlot)
        let after = ledger.persisted
        var actions: [Action] = after != before ? [.keepSession(after)] : []
        switch decided {
        case .success(.beginsSession): return [.beginSession]
        case let .success(.listed(listings)): actions.append(.publish(variant: variant, listings))
        case let .failure(rejection): actions.append(.refuse(refusal(rejection)))
        }
        return actions
    }

    /// What became of a playlist's listings once published: the answer that says so.
    public static func publishReceipt(listed: Int, recorded: [String], late: [String]) -> Action {
        var message = "listed \(listed) new segment\(listed == 1 ? "" : "s")"
        if !recorded.isEmpty { message += "; \(recorded.count) late, recorded in place of their stand-ins (\(recorded.joined(separator: ", ")))" }
        if !late.isEmpty { message += "; \(late.count) late with no slot to take them, kept aside as unplaced (\(late.joined(separator: ", ")))" }
        return .answer(created: false, message: message)
    }

    // MARK: Master

    /// A master uploaded, parsed: refused, or the ladder it is held to (configured, kept or
    /// newly declared and taken), the formats it states and the rungs it leaves out.
    public mutating func masterUploaded(_ master: MultivariantPlaylist, facts: Facts) -> [Action] {
        let playlist = settings.playlistName
        // A master is not held to the segments already taken: an encoder that starts again with
        // other codecs (its audio device gone, HEVC in place of H.264) declares them first, and
        // the segments after it are held to its declaration (`segmentUploaded`).
        let serving = settings.served.map(\.name)
        var taking: [DeclaredRung]?
        switch IngestMaster.ladder(for: master, configured: settings.ladderConfigured ? serving : nil, kept: settings.served, playlist: playlist) {
        case let .failure(refusal): return [.refuse(refusal)]
        case .success(.configured), .success(.kept): break
        case let .success(.declared(declared)):
            let hasFootage = ledger.session != nil || facts.recordingHoldsFootage
            switch IngestMaster.takesDeclared(declared, serving: serving, hasFootage: hasFootage, tookOne: facts.tookDeclaredLadder, streamDirectory: settings.streamDirectory) {
            case let .failure(refusal): return [.refuse(refusal)]
            case let .success(rungs): taking = rungs
            }
        }
        let ladder = taking?.map(\.name) ?? serving
        let formats = IngestMaster.formats(in: master, ladder: ladder, playlist: playlist, frameRate: settings.frameRate).map { NotedFormat(variant: $0.variant, format: $0.format) }
        guard let rungs = taking else {
            // The formats are noted even when the master is refused for another variant, as the ingest always has.
            switch IngestMaster.accept(master, ladder: ladder, playlist: playlist) {
            case let .failure(refusal): return [.noteFormats(formats), .refuse(refusal)]
            case let .success(taken):
                noteDeclared(master)
                return [.noteFormats(formats), .notPushed(taken.notPushed), .answer(created: false, message: taken.receipt)]
            }
        }
        // A ladder newly declared, and taken.
        switch IngestMaster.accept(master, ladder: ladder, playlist: playlist) {
        case let .failure(refusal): return [.refuse(refusal)]
        case let .success(taken):
            // The codecs are noted when the ladder is set up (the core is made anew from the
            // ladder kept): a master refused after this (the ladder could not be kept) leaves
            // nothing of itself here.
            return [.takeLadder(rungs, formats: formats, notPushed: taken.notPushed),
                    .answer(created: false, message: "the encoder's ladder (\(ladder.joined(separator: ", "))) taken for this stream and kept; " + taken.receipt)]
        }
    }

    /// The CODECS each variant of an accepted master lists, for its segments to be held to from
    /// now on (what earlier segments carried no longer counts).
    private mutating func noteDeclared(_ master: MultivariantPlaylist) {
        for variant in master.variants where !variant.codecs.isEmpty {
            guard let name = MultivariantPlaylist.variantName(ofURI: variant.uri, playlist: settings.playlistName) else { continue }
            declared[name] = variant.codecs
            carried[name] = nil
        }
    }

    // MARK: Refusals

    /// The refusal a ledger's rejection is answered with.
    public func refusal(_ rejection: IngestLedger.Rejection) -> Refusal {
        switch rejection {
        case .unknownVariant where !settings.ladderConfigured && ledger.session == nil:
            // The ladder is the encoder's to declare, by its master, before its first segment.
            Refusal(.noSuchVariant, "\(rejection), or upload the master that declares it first: this stream names no ladder in its config and takes the one its encoder's master declares").forOperators()
        case .unknownVariant: Refusal(.noSuchVariant, "\(rejection)").forOperators()
        default: Refusal.malformed("\(rejection)").forOperators()
        }
    }
}
