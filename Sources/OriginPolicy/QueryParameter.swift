import Foundation

/// Query parameters of the API and VOD routes (`start`, `end`, `variant`), read from the raw
/// query string.
public enum QueryParameter {
    /// The first value of `name`, percent-decoded ('+' stays '+': it begins a time zone
    /// offset); "" for a name without '='; nil when absent.
    public static func value(_ name: String, in query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            return parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
        }
        return nil
    }
}
