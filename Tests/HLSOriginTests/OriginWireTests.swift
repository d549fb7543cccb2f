import Foundation
@testable import HLSOrigin
import Logging
import NIOCore
import NIOEmbedded
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineTesting
import Testing

/// What a client can make `OriginWire` keep and do, on an embedded channel (no socket, no
/// sleeping): the bytes it holds between reads stay within a head, answers wait while the client
/// is not reading and no more is read meanwhile, and a decided close stops reading and ends
/// within the write timeout however slowly the client reads.
@Suite struct OriginWireTests {
    /// Counts the reads asked of the socket and keeps every write's completion until released,
    /// as a client that reads nothing makes a real socket do.
    final class Socket: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        var held: [EventLoopPromise<Void>] = []
        var written: [UInt8] = []
        func read(context: ChannelHandlerContext) { reads += 1 }
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            written += unwrapOutboundIn(data).readableBytesView
            if let promise { held.append(promise) }
        }
        func release() {
            let promises = held
            held = []
            for promise in promises { promise.succeed() }
        }
        var answers: Int { String(decoding: written, as: UTF8.self).components(separatedBy: "HTTP/1.1 200 OK").count - 1 }
    }

    struct Rig {
        let channel: EmbeddedChannel
        let socket: Socket
        let wire: OriginWire
        let limiter: ClientConnectionLimiter

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
        }
    }

    static func rig(writeTimeout: Duration? = nil, idleTimeout: Duration? = nil) throws -> Rig {
        let registry = StreamRegistry(clock: { 0 })
        registry.apply(.register(stream: "main", variants: ["720p"], targetDuration: 2))
        registry.apply(.master(stream: "main", .parsed("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n")))
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let responder = OriginFastResponder(registry: registry, policy: StatusPolicy(), segments: SegmentCache(budget: 1 << 20), admission: AdmissionControl(),
                                            serverName: "Sideline", logger: logger, access: nil, logHeaders: [], diagnostics: nil)
        let limiter = ClientConnectionLimiter(clients: ClientConnections(cap: nil, writeTimeout: writeTimeout, clock: { 0 }), idleTimeout: idleTimeout)
        let wire = OriginWire(responder: responder, limiter: limiter, secure: false)
        let socket = Socket()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(socket)
        try channel.pipeline.syncOperations.addHandler(wire)
        try channel.pipeline.syncOperations.addHandler(limiter)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        return Rig(channel: channel, socket: socket, wire: wire, limiter: limiter)
    }

    static let master = "GET /live/main/master.m3u8 HTTP/1.1\r\nHost: a\r\n\r\n"

    @Test func readsThatEndInsideAHeadKeepNoMoreThanThatHead() throws {
        let rig = try Self.rig()
        // 300 reads of 40 requests each, every read ending 20 bytes into the next request.
        let cut = Self.master.index(Self.master.startIndex, offsetBy: 20)
        for n in 0..<300 {
            let text = (n == 0 ? "" : String(Self.master[cut...])) + String(repeating: Self.master, count: 39) + String(Self.master[..<cut])
            try rig.send(text)
            #expect(rig.wire.unreadCapacity <= 1024, "read \(n): \(rig.wire.unreadCapacity) bytes kept")
        }
        #expect(rig.socket.answers == 300 * 39 + 299)
    }

    @Test func answersWaitWhileTheClientIsNotReadingAndNothingMoreIsRead() throws {
        let rig = try Self.rig()
        rig.channel.isWritable = false
        rig.channel.pipeline.fireChannelWritabilityChanged()
        try rig.send(String(repeating: Self.master, count: 10))
        rig.channel.read()
        #expect(rig.socket.answers == 0, "nothing answered while the client reads nothing")
        #expect(rig.socket.reads == 0, "and nothing more read from it")
        #expect(rig.wire.unreadCapacity < 4096)
        rig.channel.isWritable = true
        rig.channel.pipeline.fireChannelWritabilityChanged()
        #expect(rig.socket.answers == 10)
        #expect(rig.socket.reads == 1, "the read asked for meanwhile, asked now")
    }

    @Test func aDecidedCloseStopsReadingAndEndsWithinTheWriteTimeout() throws {
        let rig = try Self.rig(writeTimeout: .seconds(2))
        try rig.send(Self.master)
        #expect(rig.socket.answers == 1 && !rig.socket.held.isEmpty, "answered; the client has not read it")
        rig.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(rig.limiter.closing)
        try rig.send(Self.master)
        #expect(rig.socket.answers == 1, "nothing more is answered once the close is decided")
        #expect(rig.channel.isActive)
        rig.channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!rig.channel.isActive, "closed at the write timeout though the answer was never read")
    }
}
