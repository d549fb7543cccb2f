import NIOCore

/// The connection a router request arrives on, for the rare answer that must know when its
/// bytes have left the server rather than when they were handed to it.
///
/// Why: a response body's writes return once the connection accepts more, not once the socket
/// took them, and over TLS they were seen to return with megabytes still queued in the server
/// for a client that read nothing (3 of 5 runs of the hostile drill's clip probe on 2026-11-27:
/// a clip's body finished, its place among `clips.max_in_progress` was given back, and a
/// seventh clip was made while six clients held theirs unread). A clip therefore holds its
/// place until `drained()` returns, which bounds what waits in memory by the clips' own bound.
public enum ResponseConnection {
    /// Set by `OriginHTTP1Channel` for the whole of each connection it handles.
    @TaskLocal public static var channel: (any Channel)?

    /// Returns once every byte written so far on this request's connection has been taken by
    /// the socket, or the connection has closed (a client that stops reading is closed by the
    /// write timeout, so this returns within `server.write_timeout` of the last progress). At
    /// once outside a request, or on a connection without Sideline's limiter.
    public static func drained() async {
        guard let channel else { return }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            // Queued behind the body's last write, which the writer handed to this loop first.
            if let limiter = try? channel.pipeline.syncOperations.handler(type: ClientConnectionLimiter.self) {
                limiter.whenWritesDone(promise)
            } else {
                promise.succeed()
            }
        }
        try? await promise.futureResult.get()
    }
}
