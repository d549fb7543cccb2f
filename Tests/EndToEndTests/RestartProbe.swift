import Foundation
import HLSPlaylist
import TestSupport

/// What a player could see of a killed and restarted server: when its playlist answered again,
/// and when the next segment was listed, reloading every 100 ms for 30 s from the restart. A
/// player's stall around a restart is read against these, so a slow start-up on a loaded machine
/// is told apart from a player that fails to play on.
final class RestartProbe: Sendable {
    private let task: Task<String, Never>

    init(killedAt: Date, playlist: URL) {
        task = Task {
            var firstAnswer: Double?
            var countAtFirstAnswer = 0
            var firstNewSegment: Double?
            var longestWithoutNew = 0.0
            var lastNew: Double?
            var lastCount = 0
            while Date().timeIntervalSince(killedAt) < 30 {
                let now = Date().timeIntervalSince(killedAt)
                if let answer = try? await http(playlist, timeout: 2), answer.status == 200,
                   let listed = try? MediaPlaylist.parse(String(decoding: answer.body, as: UTF8.self)) {
                    let count = listed.segments.count
                    if firstAnswer == nil { firstAnswer = now; countAtFirstAnswer = count; lastCount = count; lastNew = now }
                    if count > lastCount {
                        if firstNewSegment == nil { firstNewSegment = now }
                        if let lastNew { longestWithoutNew = max(longestWithoutNew, now - lastNew) }
                        lastNew = now
                        lastCount = count
                    }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "never" }
            return "playlist answered again \(seconds(firstAnswer)) after the kill (\(countAtFirstAnswer) segments), "
                + "the next segment listed \(seconds(firstNewSegment)) after it, "
                + "at most \(String(format: "%.1f", longestWithoutNew)) s between new segments after that"
        }
    }

    /// The probe's findings, once its 30 s are over.
    func finish() async -> String { await task.value }
}
