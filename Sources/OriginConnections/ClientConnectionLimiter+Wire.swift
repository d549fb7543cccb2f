import HTTPTypes
import NIOCore
import OriginPolicy

/// Requests `OriginWire` answers from the socket's bytes, entered in the connection's books as
/// requests read and answered through the codec are (`channelRead` and `write`): throttling,
/// activity, the idle timer and drain, write progress and the write timeout.
extension ClientConnectionLimiter {
    /// Whether a request may be answered from the socket's bytes now: nothing else is in
    /// progress (answers go in request order), no drain is waiting for the last answer, and the
    /// connection is not over the cap (its one answer is the router's 503).
    public var answersOnWire: Bool {
        context != nil && keepAlive.requestsInProgress == 0 && !keepAlive.closeWhenAnswered && !overCap && !closing
    }

    /// Enters a whole request in the books. False: the throttle answered it (429) or closed the
    /// connection here, as it does for a request read through the codec.
    public func admitWire(_ head: HTTPRequest) -> Bool {
        guard let context else { return false }
        if let throttle, throttle.refuses(head, context: context) { return false }
        let now = clients.clock()
        activity.requestStarted(now: now)
        keepAlive.requestRead(now: now)
        return true
    }

    /// Writes an answer from `wire`'s place in the pipeline (before the encoder), tracked as the
    /// codec's parts are: a large body in pieces of `pieceBytes`, each with its completion.
    public func writeWire(status: HTTPResponse.Status, head: ByteBuffer, body: ByteBuffer?, from wire: ChannelHandlerContext) {
        guard let context else { return }
        throttle?.answering(status, context: context)
        if var rest = body {
            wire.write(NIOAny(head), promise: nil)
            while rest.readableBytes > Self.pieceBytes, let piece = rest.readSlice(length: Self.pieceBytes) {
                wire.write(NIOAny(piece), promise: tracking(nil, context: context))
            }
            wire.write(NIOAny(rest), promise: tracking(nil, context: context))
        } else {
            wire.write(NIOAny(head), promise: tracking(nil, context: context))
        }
        throttle?.answered()
        activity.requestAnswered()
        carryOut(keepAlive.answerEnded(now: clients.clock()), context: context)
    }
}
