import Foundation

/// The size rules (issue 44): no target over 2,600 lines, no file over 400, no type over 400
/// across its extensions. What breaks them today is listed as debt, each with its size when it
/// was listed: a debt may shrink, never grow, and an entry that no longer breaks the rule must
/// go, so the list only ever gets shorter.
extension HouseRules {
    static let targetLimit = 2_600
    static let fileLimit = 400
    static let typeLimit = 400

    /// Targets over `targetLimit`, to be split; lines of Swift in the target's directory. None
    /// since 2026-12-07, when OriginPolicy, StreamServices, MediaPipeline and HLSOrigin were split
    /// (IngestPolicy, IngestServices, PipelineCore, OriginConnections): a new one fails the rule.
    static let targetDebts: [String: Int] = [:]

    /// Types over `typeLimit` across their extensions (2026-12-07): module and type.
    static let typeDebts: [String: Int] = [
        "StreamPublishing.SlotPublisher": 584,
    ]

    /// `sizes`: a subject (target, file, type) and its lines; `debts`: the listed ones.
    static func sizes(_ sizes: [String: Int], limit: Int, debts: [String: Int], rule: Violation.Rule, what: String) -> [Violation] {
        var violations: [Violation] = []
        for (subject, lines) in sizes.sorted(by: { $0.key < $1.key }) {
            if let debt = debts[subject] {
                if lines > debt {
                    violations.append(Violation(rule: rule, subject: subject, message: "\(what) \(subject) has \(lines) lines, more than the \(debt) it was listed with: split it, never grow it"))
                } else if lines <= limit {
                    violations.append(Violation(rule: rule, subject: subject, message: "\(what) \(subject) is \(lines) lines now, within \(limit): take it off the debts"))
                }
            } else if lines > limit {
                violations.append(Violation(rule: rule, subject: subject, message: "\(what) \(subject) has \(lines) lines, over the \(limit) the house allows: split it"))
            }
        }
        for subject in debts.keys.sorted() where sizes[subject] == nil {
            violations.append(Violation(rule: rule, subject: subject, message: "\(what) \(subject) is listed as debt but no longer exists: take it off"))
        }
        return violations
    }

    /// Each type's lines across its declaration and its extensions, by module: a top-level
    /// `struct`, `class`, `enum`, `actor`, `protocol` or `extension` to the `}` that closes it in
    /// column 0 (the house's formatting). An extension of `A.B` counts for `A`. `files`: path to
    /// text; `module`: the module a path belongs to.
    static func typeSizes(_ files: [String: String], module: (String) -> String) -> [String: Int] {
        let declaration = #/^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|fileprivate|package|final|open|indirect|nonisolated)\s+)*(?:struct|class|enum|actor|protocol|extension)\s+([A-Za-z_]\w*)/#
        var sizes: [String: Int] = [:]
        for (path, text) in files {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                guard let match = lines[index].prefixMatch(of: declaration) else {
                    index += 1
                    continue
                }
                var end = index
                let line = lines[index]
                if !(line.hasSuffix("}") && line.filter({ $0 == "{" }).count == line.filter({ $0 == "}" }).count) {
                    end = index + 1
                    while end < lines.count && lines[end] != "}" { end += 1 }
                }
                sizes[module(path) + "." + match.1, default: 0] += min(end, lines.count - 1) - index + 1
                index = end + 1
            }
        }
        return sizes
    }
}
