import HTTPTypes
import NIOCore
import OriginPolicy

/// A rule that may answer a request itself before the origin sees it, asked by the
/// connection's limiter request by request: the credential throttle (HLSOrigin's
/// `CredentialThrottling`), which answers 429 from the socket when one client guesses too
/// often. One per connection, used on its event loop only. A protocol, so the connection books
/// do not depend on the access rules the throttle reads.
public protocol ConnectionRequestScreen: AnyObject {
    /// The request answered by the screen itself (its body parts are then dropped): nothing
    /// more of it reaches the origin.
    var swallowing: Bool { get }
    /// The peer is a trusted edge: requests count against the viewer it names.
    func trustPeer(_ peer: SocketAddress?, proxies: TrustedProxies)
    /// Whether the screen answered `head` itself.
    func refuses(_ head: HTTPRequest, context: ChannelHandlerContext) -> Bool
    /// The origin's answer to the oldest request is on its way out with `status`.
    func answering(_ status: HTTPResponse.Status, context: ChannelHandlerContext)
    /// That answer is written.
    func answered()
}
