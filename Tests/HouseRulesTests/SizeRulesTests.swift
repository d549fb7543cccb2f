import Foundation
import Testing

/// The size rules, row by row, on small fakes.
@Suite struct SizeRulesTests {
    @Test func aDebtMayShrinkButNeverGrowAndGoesOnceWithinTheLimit() {
        let debts = ["Big": 3_000, "Gone": 2_700, "Healed": 2_900]
        let violations = HouseRules.sizes(["Big": 2_950, "Healed": 2_500, "New": 2_601, "Small": 10], limit: 2_600, debts: debts, rule: .targetSize, what: "target")
        #expect(Set(violations.map(\.subject)) == ["Gone", "Healed", "New"])
        #expect(HouseRules.sizes(["Big": 3_001], limit: 2_600, debts: debts.filter { $0.key == "Big" }, rule: .targetSize, what: "target").map(\.subject) == ["Big"])
        #expect(HouseRules.sizes(["Big": 3_000], limit: 2_600, debts: debts.filter { $0.key == "Big" }, rule: .targetSize, what: "target").isEmpty)
    }

    @Test func aTypeCountsItsExtensionsInEveryFile() {
        let files = [
            "Sources/A/Core.swift": "import Foundation\n\n/// Doc.\npublic struct Core: Sendable {\n    var a = 1\n}\n\nstruct Other {}\n",
            "Sources/A/Core+More.swift": "extension Core {\n    func b() {}\n    func c() {}\n}\n\nextension Core.Inner {\n}\n",
        ]
        let sizes = HouseRules.typeSizes(files) { _ in "A" }
        #expect(sizes["A.Core"] == 3 + 4 + 2)
        #expect(sizes["A.Other"] == 1)
    }
}
