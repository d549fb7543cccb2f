import Glibc
import HTTPTypes
import NIOCore
import NIOHTTP1
import OriginConnections
import OriginPolicy

/// The origin's fast path, in front of NIO's HTTP/1 decoder: reads each request from the
/// socket's bytes (`SimpleRequestHead`), and answers the simple ones whose answer is in memory
/// (`OriginFastResponder`) by writing the answer's bytes straight back. Everything else is
/// handed to the decoder as the bytes that came, and from there to the router exactly as
/// before: requests the fast responder does not answer, any request that is not simple
/// (bodies, other versions and methods, `Connection: close`, a head over 8 KiB, malformed
/// bytes), and every request while the connection drains or another answer is in progress.
///
/// Why: the decoder, HTTPTypes' conversions both ways, the encoder and the handlers between
/// them cost about a fifth of a small playlist request's server CPU (the profile in
/// Docs/benchmarks.md, "Issue 33"); the answer itself was already made on the event loop.
///
/// The connection's books are the same either way: each request answered here is entered in
/// its `ClientConnectionLimiter` (throttling, activity, the idle timer and drain, write
/// progress and the write timeout) as one answered through the codec is.
///
/// Order: HTTP/1.1 answers requests in the order they came. A request is answered here only
/// when nothing else is in progress on the connection; once one is handed on, the ones after
/// it are handed on too until its answer has ended. A request that is not simple hands the
/// rest of the connection to the decoder for good, since only the decoder knows where its
/// body ends.
final class OriginWire: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responder: OriginFastResponder
    private let limiter: ClientConnectionLimiter
    private let scheme: String
    /// Bytes read and not yet looked at: the start of a head not yet whole (at most
    /// `SimpleRequestHead.maxLength` bytes), or what was left of a read while answers wait for
    /// the client (at most one read more). Kept in a buffer of its own, never in the storage of
    /// a read it came from, so consumed bytes are not kept with it.
    private var unread: ByteBuffer?
    /// Every later byte goes to the decoder.
    private var handingOn = false
    private var draining = false
    /// Answers wait for the client to read (the channel is not writable): no request is looked
    /// at and no read is asked of the socket until it is. Without this a client that sends
    /// requests and never reads would grow the server's queue of answers without bound.
    private var paused = false
    /// A read was asked for while paused; asked of the socket once the answers have gone.
    private var readWanted = false

    /// The storage the unread bytes keep (for the tests of what a client can make it keep).
    var unreadCapacity: Int { unread?.capacity ?? 0 }

    init(responder: OriginFastResponder, limiter: ClientConnectionLimiter, secure: Bool) {
        self.responder = responder
        self.limiter = limiter
        self.scheme = secure ? "https" : "http"
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !handingOn else { return context.fireChannelRead(data) }
        var bytes = unwrapInboundIn(data)
        if var earlier = unread {
            earlier.writeBuffer(&bytes)
            unread = earlier
        } else {
            unread = bytes
        }
        if !paused { process(context: context) }
    }

    /// Looks at the unread bytes request by request, until they run out, a head is not whole
    /// yet, or the client is not reading the answers.
    private func process(context: ChannelHandlerContext) {
        guard var bytes = unread else { return }
        unread = nil
        var wrote = false
        scanning: while bytes.readableBytes > 0 {
            if limiter.closing {
                // The connection closes: the rest is not read.
                bytes.moveReaderIndex(to: bytes.writerIndex)
                break
            }
            if handingOn {
                context.fireChannelRead(wrapInboundOut(bytes))
                bytes.moveReaderIndex(to: bytes.writerIndex)
                break
            }
            if !context.channel.isWritable {
                paused = true
                break
            }
            switch bytes.withUnsafeReadableBytes({ SimpleRequestHead.scan($0) }) {
            case .incomplete:
                break scanning
            case .handOn:
                handingOn = true
            case let .complete(head, length):
                guard let request = bytes.readSlice(length: length) else { break scanning }
                if answer(head, context: context) {
                    wrote = true
                } else {
                    context.fireChannelRead(wrapInboundOut(request))
                }
            }
        }
        if bytes.readableBytes > 0 {
            var kept = context.channel.allocator.buffer(capacity: bytes.readableBytes)
            kept.writeBuffer(&bytes)
            unread = kept
        }
        if wrote || paused { context.flush() }
    }

    func read(context: ChannelHandlerContext) {
        if paused {
            readWanted = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        guard paused, context.channel.isWritable else { return }
        paused = false
        process(context: context)
        if !paused, readWanted {
            readWanted = false
            context.read()
        }
    }

    /// A drain: every later request goes to the decoder, whose answers the limiter closes after.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { draining = true }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers `head` here when it may be: true when an answer (or the throttle's 429) was written.
    private func answer(_ head: SimpleRequestHead, context: ChannelHandlerContext) -> Bool {
        guard !draining, limiter.answersOnWire, let request = Self.request(head, scheme: scheme),
              let prepared = responder.prepare(request) else { return false }
        guard limiter.admitWire(request) else { return true }
        let response = responder.finish(prepared, peer: context.channel.remoteAddress)
        let headOnly = head.method == .head
        limiter.writeWire(status: response.status, head: Self.head(of: response, date: date(), server: responder.serverName, allocator: context.channel.allocator),
                          body: headOnly || response.body.readableBytes == 0 ? nil : response.body, from: context)
        return true
    }

    /// The `Date` value, formatted once a second per connection (no lock shared with the
    /// other event loops).
    private var dated: (second: Int, text: String) = (-1, "")

    private func date() -> String {
        let second = Int(time(nil))
        if second != dated.second { dated = (second, HTTPDate.text(for: second)) }
        return dated.text
    }

    /// The request as HTTPTypes has it, as NIO's codec would make it (`Host` as the authority);
    /// nil when a field name is not one HTTPTypes takes.
    static func request(_ head: SimpleRequestHead, scheme: String) -> HTTPRequest? {
        var fields = HTTPFields()
        fields.reserveCapacity(head.fields.count)
        var authority: String?
        for field in head.fields {
            guard let name = HTTPField.Name(field.name) else { return nil }
            if authority == nil, name.canonicalName == "host" {
                authority = field.value
                continue
            }
            fields.append(HTTPField(name: name, value: field.value))
        }
        return HTTPRequest(method: head.method == .get ? .get : .head, scheme: scheme, authority: authority, path: head.target, headerFields: fields)
    }

    /// The status line and fields of `response`, as NIO's encoder writes them, then its
    /// `Content-Length` (none on an answer that never has a body: 1xx, 204, 304), `Date` and
    /// `Server`, as Hummingbird adds them to the router's: the standard reason phrase when the
    /// status has none.
    static func head(of response: OriginResponse, date: String, server: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 1024)
        let code = response.status.code
        buffer.writeStaticString("HTTP/1.1 ")
        buffer.writeString(String(code))
        buffer.writeStaticString(" ")
        buffer.writeString(response.status.reasonPhrase.isEmpty ? HTTPResponseStatus(statusCode: code).reasonPhrase : response.status.reasonPhrase)
        buffer.writeStaticString("\r\n")
        for field in response.headers where field.name != .contentLength {
            buffer.writeString(field.name.rawName)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        if code >= 200, code != 204, code != 304 {
            buffer.writeStaticString("Content-Length: ")
            buffer.writeString(String(response.body.readableBytes))
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(date)
        buffer.writeStaticString("\r\nServer: ")
        buffer.writeString(server)
        buffer.writeStaticString("\r\n\r\n")
        return buffer
    }
}
