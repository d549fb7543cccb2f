import HTTPTypes
@testable import HLSOrigin
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import OriginPolicy
import Testing

/// `ClientConnectionLimiter.whenWritesDone`, which `ResponseConnection.drained` asks: a clip
/// holds its place until the socket has taken every byte of it, not until its writer returned.
/// The socket is a handler at the head of the pipeline that keeps each write's completion until
/// the test lets it go, as a client that reads nothing makes a real socket do.
@Suite struct ResponseDrainTests {
    final class HeldSocket: ChannelOutboundHandler {
        typealias OutboundIn = HTTPResponsePart
        var held: [EventLoopPromise<Void>] = []
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if let promise { held.append(promise) }
        }
        func takeAll() {
            let promises = held
            held = []
            for promise in promises { promise.succeed() }
        }
    }

    /// Set by a completion on the embedded loop, which runs it at once on this thread.
    final class Flag: @unchecked Sendable {
        var value = false
    }

    static func answer(_ channel: EmbeddedChannel, bytes: Int) {
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.write(HTTPResponsePart.body(ByteBuffer(repeating: 0, count: bytes)), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
    }

    static func make() throws -> (EmbeddedChannel, HeldSocket, ClientConnectionLimiter) {
        let socket = HeldSocket()
        let limiter = ClientConnectionLimiter(clients: ClientConnections(cap: nil))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(socket)
        try channel.pipeline.syncOperations.addHandler(limiter)
        return (channel, socket, limiter)
    }

    /// Asks the limiter to say when every write so far was taken; the flag turns true then.
    static func whenDrained(_ channel: EmbeddedChannel, _ limiter: ClientConnectionLimiter) -> Flag {
        let drained = channel.eventLoop.makePromise(of: Void.self)
        let done = Flag()
        drained.futureResult.whenSuccess { done.value = true }
        limiter.whenWritesDone(drained)
        return done
    }

    @Test func drainedWaitsUntilTheSocketTookEveryByte() throws {
        let (channel, socket, limiter) = try Self.make()
        Self.answer(channel, bytes: 3 * ClientConnectionLimiter.pieceBytes - 1000)
        #expect(socket.held.count == 4, "three pieces of the body and the end, each with its completion (the head's is the end's)")
        let done = Self.whenDrained(channel, limiter)
        #expect(!done.value, "the writer has returned, but the bytes are still waiting for the client")
        socket.takeAll()
        #expect(done.value)
        _ = try? channel.finish()
    }

    @Test func drainedIsAtOnceWhenNothingWaitsAndWhenTheConnectionCloses() throws {
        let (channel, socket, limiter) = try Self.make()
        let idleDone = Self.whenDrained(channel, limiter)
        #expect(idleDone.value, "nothing written: nothing to wait for")

        Self.answer(channel, bytes: 1 << 20)
        let closedDone = Self.whenDrained(channel, limiter)
        #expect(!closedDone.value)
        // A client that never reads is closed by the write timeout: its place is given back then.
        channel.pipeline.fireChannelInactive()
        #expect(closedDone.value)
        socket.takeAll()
        _ = try? channel.finish()
    }

    /// Only the end and the pieces of a large body carry a completion (writes complete in
    /// order, so the end's says the head and a small body were taken as well): what a small
    /// answer costs on the path every request takes.
    @Test func aSmallAnswerIsTrackedByItsEndAlone() throws {
        let (channel, socket, limiter) = try Self.make()
        Self.answer(channel, bytes: 1000)
        #expect(socket.held.count == 1)
        let done = Self.whenDrained(channel, limiter)
        #expect(!done.value, "the end is not taken yet")
        socket.takeAll()
        #expect(done.value)
        _ = try? channel.finish()
    }

    /// A client that stops reading a stream of small parts: no part carries a completion, but
    /// the channel turns unwritable, which counts as a write waiting (the write timeout's
    /// business), and writable again as progress.
    static func writing(_ limiter: ClientConnectionLimiter) -> Bool {
        switch limiter.activity.state {
        case .writing: true
        case .idle, .busy: false
        }
    }

    @Test func anUnwritableChannelCountsAsAWriteWaiting() throws {
        let (channel, _, limiter) = try Self.make()
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        channel.writeAndFlush(HTTPResponsePart.body(ByteBuffer(repeating: 0, count: 1000)), promise: nil)
        if Self.writing(limiter) { Issue.record("small parts carry no completion: nothing counts as waiting") }
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        guard Self.writing(limiter) else {
            Issue.record("an unwritable channel is a write waiting: \(limiter.activity.state)")
            return
        }
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        if Self.writing(limiter) { Issue.record("writable again is progress") }
        _ = try? channel.finish()
    }
}
