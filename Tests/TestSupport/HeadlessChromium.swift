import Foundation

/// Runs a page's scripts in headless Chromium (`--dump-dom` of an HTML file) and gives back
/// what the page wrote into its `<pre id="out">`: tests of the page's scripts hand them
/// data in the page and read a JSON answer back, one browser start per page.
public enum HeadlessChromium {
    /// The text of `<pre id="out">` after `html` (written to `directory`) has run.
    public static func output(of html: String, in directory: String, timeout: Double = 60) async throws -> String {
        let path = directory + "/page.html"
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Command.run("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + directory + "/profile",
                                                     "--dump-dom", URL(fileURLWithPath: path).absoluteString], timeout: timeout)
        let dom = run.stdout
        guard let start = dom.range(of: "<pre id=\"out\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else {
            throw SidelineProcess.Failure(message: "no output from Chromium (status \(run.status)): \(run.stderr.suffix(600))")
        }
        return dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
