import SidelineCore
import Testing

/// Media time on the status lines.
@Suite struct ClockTextTests {
    @Test func hoursMinutesSecondsAndHundredthsWhenAsked() {
        #expect(ClockText.of(3_725.4) == "01:02:05")
        #expect(ClockText.of(3_725.4, hundredths: true) == "01:02:05.40")
        #expect(ClockText.of(0, hundredths: true) == "00:00:00.00")
    }
}
