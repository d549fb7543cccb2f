import Foundation
import StreamPushing

/// The owner's two steps in one, as `PushedStream` takes them: a playlist that begins a push
/// session is decided again with the slot `startSession` gives (the publisher's
/// `beginPushSession`), called only then.
extension IngestLedger {
    mutating func playlistReceived(variant: String, text: String, now: Date, startSession: () -> Int) -> Result<[Listing], Rejection> {
        var receipt = playlistReceived(variant: variant, text: text, now: now, sessionSlot: nil)
        if case .success(.beginsSession) = receipt { receipt = playlistReceived(variant: variant, text: text, now: now, sessionSlot: startSession()) }
        return receipt.map { receipt in
            guard case let .listed(listings) = receipt else { return [] }
            return listings
        }
    }
}

extension PushedStreamCore {
    mutating func playlistUploaded(variant: String, body: [UInt8], now: Date, startSession: () -> Int) -> [Action] {
        let actions = playlistUploaded(variant: variant, body: body, now: now)
        guard actions == [.beginSession] else { return actions }
        return playlistUploaded(variant: variant, body: body, now: now, sessionSlot: startSession())
    }
}
