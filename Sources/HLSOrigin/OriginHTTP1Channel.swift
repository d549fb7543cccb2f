import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import OriginConnections

/// Hummingbird's HTTP/1.1 child channel, set up as `HTTP1Channel` sets it up, with two of
/// Sideline's handlers: the fast path (`OriginWire`) in front of NIO's decoder, on the socket's
/// bytes, and the connection's books (`ClientConnectionLimiter`: caps, throttling, write and
/// idle timeouts, drain) after the codec, in place of Hummingbird's connection-state handler,
/// whose idle timer could not see the answers the fast path writes and would close busy
/// connections as idle.
struct OriginHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let clients: ClientConnections
    let idleTimeout: Duration?
    /// Nil turns the fast path off (every request through the router).
    let fastPath: OriginFastResponder?
    /// Whether TLS is under this channel (the requests' scheme is https).
    var secure = false
    /// Refused credentials slowed per address (429); nil: not slowed.
    var throttling: CredentialThrottling?

    /// The bytes a client socket may hold that the kernel has not yet sent (TCP_NOTSENT_LOWAT):
    /// what a client that stops reading makes the server keep, on top of what is in flight.
    ///
    /// Why this bound and not the send buffer's size: left to autotuning, each socket may grow
    /// to tcp_wmem's 4 MiB, and a few hundred clients that ask for segments and never read them
    /// then hold gigabytes of kernel memory, past tcp_mem, and the kernel resets connections
    /// across the machine ("TCP: out of memory", seen in dmesg while 80 stalled downloads ran
    /// beside the other HTTP tests). Issue 26 bounded SO_SNDBUF to 256 KiB; that also bounded
    /// what a reading client may have in flight, so a 1 MB answer took several writes and a
    /// wake-up between them, and cost more CPU than at 1cafd67. This bounds only what waits
    /// unsent: 300 stalled downloads of a 1 MB segment held +395 KiB each at both ends (against
    /// +589 KiB with the 256 KiB send buffer and +3,896 KiB with no bound), and a reading client
    /// takes a segment in one write (Docs/benchmarks.md, "Issue 33: the bound on unsent bytes").
    /// 256 KiB holds several times the bandwidth-delay product of a venue LAN or Wi-Fi
    /// (1 Gbit/s x 1 ms is 125 KB; 50 Mbit/s x 20 ms is 125 KB), so it costs players nothing.
    /// What is in flight is bounded apart (`sendBufferCeiling`, `userTimeoutMilliseconds`).
    static let unsentBytes: SocketOptionValue = 256 << 10
    /// The send buffer's ceiling (Linux doubles it): what a client that stops acknowledging,
    /// rather than reading, can make the server keep in flight. Without a ceiling autotuning
    /// takes it to tcp_wmem's maximum (4 MiB here, more on a tuned host) once the client has
    /// read fast enough to open its window (the review of 2026-11-29). 1 MiB still takes a
    /// 1 MB segment in one write (`strace -c -f -p <server>` over 1,000 requests of the 957,860-byte
    /// segment on one connection: 1,003 `writev`), and holds a client that stops acknowledging
    /// to 2,090 KiB queued (`scripts/bench/run unacked-memory`, Docs/benchmarks.md).
    static let sendBufferCeiling: SocketOptionValue = 1 << 20
    #if os(Linux)
    /// `TCP_NOTSENT_LOWAT` and `TCP_USER_TIMEOUT` (linux/tcp.h), which NIO does not name.
    static let notSentLowWater = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 25))
    static let userTimeout = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 18))
    #endif

    /// The kernel's own write timeout, in milliseconds: data sent and not acknowledged for this
    /// long aborts the connection, also after the server has closed it (an orphaned socket
    /// would otherwise retransmit for minutes, its buffers no longer counted against the
    /// connection cap). The configured write timeout, 30 s by default; none when it is off.
    var userTimeoutMilliseconds: SocketOptionValue? {
        guard let timeout = clients.writeTimeout, timeout > .zero else { return nil }
        return SocketOptionValue(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(.socketOption(.so_sndbuf), value: Self.sendBufferCeiling)
            #if os(Linux)
            try channel.syncOptions?.setOption(Self.notSentLowWater, value: Self.unsentBytes)
            if let userTimeoutMilliseconds { try channel.syncOptions?.setOption(Self.userTimeout, value: userTimeoutMilliseconds) }
            #endif
            let pipeline = channel.pipeline.syncOperations
            let limiter = ClientConnectionLimiter(clients: clients, screen: throttling.map(CredentialThrottleState.init), idleTimeout: idleTimeout)
            if let fastPath { try pipeline.addHandler(OriginWire(responder: fastPath, limiter: limiter, secure: secure)) }
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // NIOAsyncChannel answers in order
                withErrorHandling: false,  // Hummingbird's handleHTTP answers parse errors
                withOutboundHeaderValidation: false,  // HTTPTypes validate
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: .init()
            )
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
            try pipeline.addHandler(limiter)
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        // Every request of this connection can find it (`ResponseConnection.drained`).
        await ResponseConnection.$channel.withValue(asyncChannel.channel) {
            await handleHTTP(asyncChannel: asyncChannel, logger: logger)
        }
    }
}
