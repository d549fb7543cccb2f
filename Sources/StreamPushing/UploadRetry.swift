import SidelineCore

/// What `push` does after an upload failed, as the practice of HLS ingest specs has it (DASH-IF
/// live media ingest): a media segment is retried for about one segment duration, then left in
/// the queue for the backlog so the live edge is not held up; a playlist is retried until it
/// goes through (it is what makes segments visible); a refusal that retrying cannot fix is not
/// retried. Waits come from the one `Backoff`. Pure: the caller passes the times.
public enum UploadRetry {
    public enum Upload: Sendable, Equatable {
        case segment
        case playlist
        /// The master playlist or the metadata: retried like a playlist, but nothing of them
        /// can be sent again to make a 400 go away.
        case document
    }

    public enum Decision: Sendable, Equatable {
        /// Try the same upload again after this many seconds.
        case retry(after: Double)
        /// Stop trying this segment now; it stays queued and goes with the backlog.
        case deferToBacklog
        /// The server refuses this segment for good (400: it does not pass the ingest's checks);
        /// it leaves the queue, and the stream goes on without it (a stand-in fills its slot).
        case drop(String)
        /// The server refused the playlist (400) for the first time: it may have lost segments
        /// it had received (its data directory was emptied); send the playlist's segments
        /// again, then the playlist.
        case resendSegments
        /// No upload can succeed (401 or 403: the token; 400 for a playlist: the stream's
        /// own settings; 409 for the master: the server keeps another ladder for the stream):
        /// `push` ends with this message.
        case stop(String)
    }

    /// `status`: the server's answer, nil when it could not be reached or did not answer in
    /// time; `firstAttempt`: when this upload was first tried; `backoff`: this upload's;
    /// `resent`: a playlist's segments were sent again after its last 400.
    public static func decide(_ upload: Upload, status: Int?, reason: String, firstAttempt: Double, now: Double,
                              segmentDuration: Double, resent: Bool = false, backoff: inout Backoff) -> Decision {
        switch status {
        case 401?:
            return .stop("the server refused the ingest token (401: \(reason)); give the stream's ingest_token with --token")
        case 403?:
            return .stop("the server refused to take this stream (403: \(reason)); check the stream name in --to and its ingest_token")
        case 404?:
            return .stop("the server has no such stream or variant (404: \(reason)); check the stream name in --to and the ladder against the server's config")
        case 410?:
            return .stop("the server removed this stream (410: \(reason)); push to another stream name")
        case 409? where upload == .document:
            // The server keeps another ladder this stream's encoder pushed on; retrying cannot change it.
            return .stop("the server refused the master (409: \(reason))")
        case 413?:
            return .drop("the server refused the segment as too large (413: \(reason))")
        case 400? where upload == .playlist && !resent:
            return .resendSegments
        case 400? where upload != .segment:
            return .stop("the server refused the \(upload == .playlist ? "playlist" : "upload") (400: \(reason)); the stream's settings do not match what the server expects")
        case 400?:
            return .drop("the server refused the segment (400: \(reason))")
        default:
            if upload == .segment, now - firstAttempt >= segmentDuration { return .deferToBacklog }
            return .retry(after: backoff.failed(at: now))
        }
    }
}

extension Backoff {
    /// An upload's retries: 0.2 s doubling to 2 s, a fraction of a segment between attempts.
    public static var uploadRetry: Backoff { Backoff(first: 0.2, maximum: 2) }
}
