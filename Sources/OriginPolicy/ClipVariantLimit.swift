/// What a credential limited to one variant (a signed URL made with `sideline sign --variant`)
/// may clip: that variant only, as it may play that variant only. Without a `variant` asked,
/// the clip is of the limit's variant (not the top one, which the credential does not cover).
public enum ClipVariantLimit {
    /// The variant to clip (nil: the clip route's own choice), or 403 when `asked` is another
    /// variant than `limit`.
    public static func variant(asked: String?, limit: String?, stream: String) -> Result<String?, Refusal> {
        guard let limit else { return .success(asked) }
        guard let asked, asked != limit else { return .success(limit) }
        return .failure(Refusal(.forbidden, "this URL covers variant '\(limit)' of stream '\(stream)' only: it cannot clip '\(asked)' (ask for variant=\(limit), or a URL for that variant)",
                                cache: .noStore))
    }
}
