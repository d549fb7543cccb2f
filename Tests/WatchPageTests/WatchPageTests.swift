import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOFoundationCompat
import Testing
import WatchPage

/// The page's four files over HTTP: their bytes as in `Sources/WatchPage/Resources`, their
/// types, an entity tag each with 304 on a match, and the page's Content-Security-Policy.
@Suite struct WatchPageTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/WatchPage/Resources")

    func app() -> some ApplicationProtocol {
        let router = Router()
        WatchPage.add(to: router)
        return Application(router: router)
    }

    @Test(arguments: [("/", "page.html", "text/html; charset=utf-8"), ("/page.css", "page.css", "text/css; charset=utf-8"),
                      ("/page.js", "page.js", "text/javascript; charset=utf-8"), ("/page-sync.js", "page-sync.js", "text/javascript; charset=utf-8"),
                      ("/page-state.js", "page-state.js", "text/javascript; charset=utf-8"), ("/page-angles.js", "page-angles.js", "text/javascript; charset=utf-8")])
    func eachFileIsServedAsItIsWithItsTypeAndTag(path: String, file: String, type: String) async throws {
        let bytes = try Data(contentsOf: Self.resources.appendingPathComponent(file))
        try await app().test(.router) { client in
            let etag = try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == type)
                #expect(response.headers[.cacheControl] == "no-cache", "revalidated with its tag at every load")
                #expect(Data(buffer: response.body) == bytes, "the file built into the binary is the one in the repository")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: "\"other\""]) { #expect($0.status == .ok) }
        }
    }

    @Test func thePageLoadsItsOwnScriptAndStylesOnly() async throws {
        try await app().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("<script src=\"/page.js\"></script>") && html.contains("<link rel=\"stylesheet\" href=\"/page.css\">"))
                // The sync rule loads first: page.js calls it.
                let sync = try #require(html.range(of: "<script src=\"/page-sync.js\"></script>")), page = try #require(html.range(of: "<script src=\"/page.js\">"))
                #expect(sync.lowerBound < page.lowerBound)
                #expect(!html.contains("<script>") && !html.contains("<style>"), "no inline script or style block")
                let policy = try #require(response.headers[HTTPField.Name("Content-Security-Policy")!])
                #expect(policy.contains("script-src 'self'") && !policy.contains("script-src 'unsafe-inline'"))
            }
        }
    }

    @Test func eachFileHasItsOwnTag() {
        let tags = ["/", "/page.css", "/page.js", "/page-sync.js"].map { path in WatchPage.entityTag(of: path) }
        #expect(Set(tags).count == 4 && tags.allSatisfy { $0 != nil })
    }
}
