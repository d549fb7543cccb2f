/// The libavfilter graph behind `--input testpattern`: a 1280x720 moving test card with the
/// wall clock (UTC, to the second) and the frame number burned in, and a 1 kHz tone.
/// The input thread paints a machine-readable clock over its bottom rows (`PatternClock`):
/// libavfilter cannot read the wall clock per frame reliably.
public enum TestPattern {
    public static func filterGraph(frameRate: FrameRate) -> String {
        // drawtext's own escaping: ':' inside an expansion is '\:', and the strftime format's
        // ':' must survive two levels of parsing, hence '\\\:'.
        let clock = #"%{gmtime\:%Y-%m-%d %H\\\:%M\\\:%S} UTC"#
        let text = #"drawtext=text='\#(clock)   frame %{n}':fontsize=40:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=8:x=24:y=24"#
        return "testsrc2=size=1280x720:rate=\(frameRate.numerator)/\(frameRate.denominator),\(text)[out0];"
            + "sine=frequency=1000:sample_rate=48000:beep_factor=4[out1]"
    }
}
