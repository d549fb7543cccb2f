import HTTPTypes
import Hummingbird
import NIOCore

/// The page analysts open on the LAN: `GET /` with its stylesheet and scripts, real files
/// (`Resources/page.html`, `page.css`, `page.js`, `page-angles.js`, `page-state.js`,
/// `page-sync.js`) built into the binary, so the page is there
/// wherever the binary is, with no build step, no CDN and nothing fetched from the internet. It
/// plays with the browser's own HLS (Safari, iPadOS, Chromium) and talks to the API:
/// `/api/streams` for states, bit rates and disk use, `/api/streams/{stream}/markers` for
/// markers, `clip.mp4` for clips; `/api/sets` for angle sets, whose angles it plays side by side
/// and keeps in sync (`page-sync.js`). Each file is answered with an entity tag of its bytes, so a
/// browser revalidates with one small request and gets 304 until an upgrade changes it.
public enum WatchPage {
    /// One file of the page as sent, made once.
    struct Asset: Sendable {
        let path: String
        let contentType: String
        let body: ByteBuffer
        let etag: String

        init(path: String, contentType: String, bytes: [UInt8]) {
            self.path = path
            self.contentType = contentType
            body = ByteBuffer(bytes: bytes)
            // djb2 over the bytes: changes with the file, costs nothing at run time.
            etag = "\"page-\(String(UInt64(bitPattern: Int64(bytes.reduce(5381) { ($0 &* 33) &+ Int($1) })), radix: 36))\""
        }
    }

    static let assets = [
        Asset(path: "/", contentType: "text/html; charset=utf-8", bytes: PackageResources.page_html),
        Asset(path: "/page.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.page_css),
        Asset(path: "/page.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.page_js),
        // The angle sync rule, apart from the page so a test can run it alone (PageSyncTests).
        Asset(path: "/page-sync.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.page_sync_js),
        // The page's decisions, pure, run row by row by PageStateTests; the set grid's controllers.
        Asset(path: "/page-state.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.page_state_js),
        Asset(path: "/page-angles.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.page_angles_js),
        // The test pattern's clock read from a <video> through a canvas: for benchmarks and tests
        // (scripts/bench/angles/angle_sync.py), not loaded by the page.
        Asset(path: "/pattern-clock.js", contentType: "text/javascript; charset=utf-8", bytes: PackageResources.pattern_clock_js),
    ]

    /// Scripts and styles come from this server only (inline style attributes are allowed; the
    /// markup uses a few). Media may come from elsewhere: a master with `stream.backups` lists
    /// playlists on a mirror, and a media-src of 'self' made Chromium refuse the whole master
    /// (measured).
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; media-src * blob:; img-src 'self' data:"

    /// The entity tag `path` is served with; nil for a path that is not the page's.
    public static func entityTag(of path: String) -> String? { assets.first { $0.path == path }?.etag }

    public static func add<Context: RequestContext>(to router: Router<Context>) {
        for asset in assets {
            router.get(RouterPath(asset.path)) { request, _ in
                if request.headers[.ifNoneMatch] == asset.etag {
                    return Response(status: .notModified, headers: [.eTag: asset.etag])
                }
                var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "no-cache", .eTag: asset.etag]
                if asset.path == "/" { headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy }
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: asset.body))
            }
        }
    }
}
