import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /`: the page analysts open on the LAN. One HTML file with its script and styles inline:
/// no build step, no CDN, nothing fetched from the internet. It plays with the browser's own
/// HLS (Safari, iPadOS, Chromium) and talks to the API: `/api/streams` for states, bit rates
/// and disk use, `/api/streams/{stream}/markers` for markers, `clip.mp4` for clips.
enum WatchPage {
    /// The page as sent, made once.
    static let body = ByteBuffer(string: html)
    /// Changes with the page's text, so a browser revalidates after an upgrade.
    static let etag = "\"page-\(String(UInt64(bitPattern: Int64(html.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) })), radix: 36))\""

    static func add<Context: RequestContext>(to router: Router<Context>) {
        router.get("/") { request, _ in
            if request.headers[.ifNoneMatch] == etag {
                return Response(status: .notModified, headers: [.eTag: etag])
            }
            let headers: HTTPFields = [
                .contentType: "text/html; charset=utf-8",
                .cacheControl: "no-cache",
                .eTag: etag,
                // Scripts, styles and API calls come from this server only. Media may come from
                // elsewhere: a master with `stream.backups` lists playlists on a mirror, and a
                // media-src of 'self' made Chromium refuse the whole master (measured).
                HTTPField.Name("Content-Security-Policy")!: "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; media-src * blob:; img-src 'self' data:",
            ]
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
        }
    }
}
