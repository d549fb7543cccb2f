import HTTPTypes
import NIOCore
import NIOHTTPTypes
import OriginPolicy
import SidelineCore

/// Keeps one connection's books: counts it in `ClientConnections` (which may close a less
/// useful one, or this one, at a cap), keeps its `ConnectionActivity`, closes it when an
/// answer's writes make no progress for `ClientConnections.writeTimeout`, closes it when idle
/// and on a drain (`ConnectionKeepAlive`, in place of Hummingbird's `HTTPConnectionStateHandler`),
/// and slows credential guessing (`CredentialThrottling`, when given). Sits after the HTTP
/// codec, so it sees every request head and every answer part the router writes; requests
/// `OriginWire` answers from the socket's bytes are entered in the same books through
/// `ClientConnectionLimiter+Wire.swift`.
///
/// Why the idle timer moved here: Hummingbird's handler counts only the parts it sees, so a
/// connection answered entirely from the socket's bytes looked idle and was closed under a
/// playing client.
///
/// Why a write timeout of its own: Hummingbird's idle timer is off while an answer is written,
/// so a client that never reads a large answer held its connection for ever.
///
/// Why one handler for both jobs, and why only some writes are tracked: every request passes
/// here, and the serving benchmark measured both a second handler and a completion for each
/// answer part (a promise, a closure, two clock readings) in the CPU per request. Writes
/// complete in order, so the completion of an answer's end, and of each 128 KiB piece of a large
/// body, says everything before it was taken too; a stream of small body parts the client
/// stops reading makes the channel unwritable, which counts as a write waiting.
public final class ClientConnectionLimiter: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// Body parts are written in pieces of at most this size, each with its own completion, so
    /// progress is seen every 128 KiB a client reads: a slow player on a big segment keeps
    /// showing progress (`ConnectionEviction.stalledWriterSeconds`), where one 6 MB write would
    /// complete only at its end. Each piece costs a completion: a 1 MB segment in 64 KiB pieces
    /// cost 8% more CPU per request than in one, in 128 KiB pieces 4% less than at 1cafd67
    /// (Docs/benchmarks.md, "Issue 33: the bound on unsent bytes").
    public static let pieceBytes = 128 << 10

    public let clients: ClientConnections
    public let throttle: (any ConnectionRequestScreen)?
    private let writeTimeout: Duration?
    public let activity: ConnectionActivity
    /// Whether the client is still there, for the requests it holds.
    public let presence = ConnectionPresence()
    private var counted: UInt64?
    private var decided = false
    /// Counted in over `max_connections`: once it has been answered 503 it is closed, so a
    /// burst past the cap does not keep its sockets open until the idle timeout.
    public private(set) var overCap = false
    /// Idle and drain: requests in progress, when the connection was last active.
    public var keepAlive: ConnectionKeepAlive
    private var idleCheck: Scheduled<Void>?
    /// A close was decided (idle, or a drain): nothing more is read or answered, and the
    /// connection closes once what was written is taken, or after the write timeout at most.
    public private(set) var closing = false
    /// This handler's context while it is in the pipeline (the wire's writes are timed from it).
    public var context: ChannelHandlerContext?
    private var answering503 = false
    private var timer: Scheduled<Void>?
    /// Writes handed on and not yet taken by the socket, and who waits for them to be
    /// (`ResponseConnection.drained`). On the event loop only.
    private var unwritten = 0
    private var drainWaiters: [EventLoopPromise<Void>] = []
    /// Whether the channel's unwritability is counted as a write waiting in `activity`.
    private var blocked = false

    /// `idleTimeout`: nil or zero never closes an idle connection.
    public init(clients: ClientConnections, screen: (any ConnectionRequestScreen)? = nil, idleTimeout: Duration? = nil) {
        self.clients = clients
        self.throttle = screen
        self.writeTimeout = clients.writeTimeout
        let now = clients.clock()
        self.activity = ConnectionActivity(now: now)
        self.keepAlive = ConnectionKeepAlive(idleTimeout: idleTimeout?.inSeconds, now: now)
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { decide(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        decide(context)
        context.fireChannelActive()
    }

    /// A drain (graceful shutdown): closed at once when nothing is in progress, else after the
    /// last answer's bytes are taken by the socket.
    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent { presence.leave() }
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        carryOut(keepAlive.drain(), context: context)
    }

    /// Closes (after every write handed on is taken) or schedules the next idle check.
    public func carryOut(_ action: ConnectionKeepAlive.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .close:
            guard !closing else { return }
            closing = true
            // No more requests: a client that keeps sending (and reading slowly) must not put
            // the close off for ever.
            try? context.channel.syncOptions?.setOption(.autoRead, value: false)
            context.flush()
            guard let writeTimeout, unwritten > 0 else { return context.close(promise: nil) }
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            whenWritesDone(written)
            // However slowly the client reads what is left, at most the write timeout.
            context.eventLoop.assumeIsolated().scheduleTask(in: .init(writeTimeout)) {
                context.close(promise: nil)
            }
        case let .check(at):
            guard idleCheck == nil else { return }
            idleCheck = context.eventLoop.assumeIsolated().scheduleTask(in: .init(.seconds(max(0.001, at - clients.clock())))) { [self] in
                idleCheck = nil
                carryOut(keepAlive.timerFired(now: clients.clock()), context: context)
            }
        }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        presence.leave()
        idleCheck?.cancel()
        idleCheck = nil
        release()
        wakeDrainWaiters()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        idleCheck?.cancel()
        idleCheck = nil
        self.context = nil
        release()
        wakeDrainWaiters()
    }

    /// Completes `promise` once every write handed on so far has been taken by the socket (or
    /// the connection has closed): at once when none is outstanding. Call on the event loop.
    public func whenWritesDone(_ promise: EventLoopPromise<Void>) {
        if unwritten == 0 { promise.succeed() } else { drainWaiters.append(promise) }
    }

    private func wakeDrainWaiters() {
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.succeed() }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if closing { return }
        switch unwrapInboundIn(data) {
        case let .head(head):
            if let throttle, throttle.refuses(head, context: context) { return }
            let now = clients.clock()
            activity.requestStarted(now: now)
            keepAlive.headRead(now: now)
        case .body:
            if throttle?.swallowing == true { return }
            keepAlive.bodyRead(now: clients.clock())
        case .end:
            if throttle?.swallowing == true { return }
            keepAlive.endRead(now: clients.clock())
        }
        context.fireChannelRead(data)
    }

    /// A client that stops reading a stream of small parts makes the channel unwritable: that
    /// counts as a write waiting, so the write timeout closes it as it closes a stalled large one.
    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        if !writable, !blocked {
            blocked = true
            if activity.writeQueued(now: clients.clock()) { armTimer(context) }
        } else if writable, blocked {
            blocked = false
            activity.writeDone(now: clients.clock())
        }
        context.fireChannelWritabilityChanged()
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case let .head(head):
            if overCap { answering503 = head.status == .serviceUnavailable }
            throttle?.answering(head.status, context: context)
            // Not tracked: the end's completion covers it (writes complete in order).
            if promise == nil { return context.write(data, promise: nil) }
        case .end:
            throttle?.answered()
            activity.requestAnswered()
            track(part, context: context, promise: promise)
            if answering503 {
                context.flush()
                context.close(promise: nil)
            } else {
                carryOut(keepAlive.answerEnded(now: clients.clock()), context: context)
            }
            return
        case let .body(body) where body.readableBytes <= Self.pieceBytes:
            if promise == nil { return context.write(data, promise: nil) }
        case .body:
            break
        }
        guard case var .body(rest) = part, rest.readableBytes > Self.pieceBytes else {
            track(part, context: context, promise: promise)
            return
        }
        while rest.readableBytes > Self.pieceBytes, let piece = rest.readSlice(length: Self.pieceBytes) {
            track(.body(piece), context: context, promise: nil)
        }
        track(.body(rest), context: context, promise: promise)
    }

    /// Hands `part` on with a completion that counts it in `activity` and `unwritten`.
    private func track(_ part: HTTPResponsePart, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        context.write(wrapOutboundOut(part), promise: tracking(promise, context: context))
    }

    /// A completion for one write that counts it in `activity` and `unwritten`: the caller's
    /// own promise when it gave one (completed by the same write, so no second promise and no
    /// cascade on the path every answer takes).
    public func tracking(_ promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) -> EventLoopPromise<Void> {
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        if activity.writeQueued(now: clients.clock()) { armTimer(context) }
        unwritten += 1
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            activity.writeDone(now: clients.clock())
            unwritten -= 1
            if unwritten == 0 { wakeDrainWaiters() }
        }
        return written
    }

    /// Checks the write timeout while writes are outstanding; stops when they are done.
    private func armTimer(_ context: ChannelHandlerContext, after delay: Duration? = nil) {
        guard let writeTimeout, timer == nil else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: .init(delay ?? writeTimeout)) { [self] in
            timer = nil
            let state = activity.state
            let now = clients.clock()
            let timeout = writeTimeout.inSeconds
            if ConnectionEviction.writeTimedOut(state, now: now, timeout: timeout) {
                context.close(promise: nil)
            } else if case let .writing(lastProgress) = state {
                armTimer(context, after: .seconds(max(0.01, lastProgress + timeout - now)))
            }
        }
    }

    private func decide(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        carryOut(keepAlive.firstCheck, context: context)
        let peer = context.channel.remoteAddress
        guard let address = peer?.clientKey else { return }
        let trusted = !clients.trustedProxies.isEmpty && peer?.addressBytes.map(clients.trustedProxies.trusts) == true
        if trusted { throttle?.trustPeer(peer, proxies: clients.trustedProxies) }
        if let admitted = clients.admit(address, trusted: trusted, activity: activity, presence: presence, channel: context.channel) {
            counted = admitted.id
            overCap = admitted.overCap
        } else {
            context.close(promise: nil)
        }
    }

    private func release() {
        guard let id = counted else { return }
        counted = nil
        clients.release(id)
    }
}
