/// The libavfilter graph behind the "signal lost" card: what every variant encodes while a
/// live input is lost, so players keep receiving real segments. A dark card with the words
/// and the time since the loss (the source's own clock starts at the loss), and silence.
public enum Slate {
    public static func filterGraph(width: Int, height: Int, frameRate: FrameRate) -> String {
        let big = max(16, height / 9)
        let small = max(12, height / 20)
        let title = "drawtext=text='SIGNAL LOST':fontsize=\(big):fontcolor=white:x=(w-text_w)/2:y=h/2-text_h-\(small)"
        // '%{pts\:hms}': the card's own time, which starts when the input was lost.
        let since = #"drawtext=text='no signal for %{pts\:hms}':fontsize=\#(small):fontcolor=0xc8c8c8:x=(w-text_w)/2:y=h/2+\#(small)"#
        return "color=c=0x1c2430:size=\(width)x\(height):rate=\(frameRate.numerator)/\(frameRate.denominator),\(title),\(since)[out0];"
            + "anullsrc=channel_layout=stereo:sample_rate=48000[out1]"
    }

    /// The stand-in card: what a slot shows when its real segment is late (a stalled
    /// pipeline, a restart) and nothing better can fill it. Still, so one encoded segment
    /// can be repeated, and silent.
    public static func standInGraph(width: Int, height: Int, frameRate: FrameRate) -> String {
        let big = max(16, height / 10)
        let small = max(12, height / 22)
        let title = "drawtext=text='TECHNICAL DIFFICULTY':fontsize=\(big):fontcolor=white:x=(w-text_w)/2:y=h/2-text_h-\(small)"
        let note = "drawtext=text='the picture returns shortly':fontsize=\(small):fontcolor=0xc8c8c8:x=(w-text_w)/2:y=h/2+\(small)"
        return "color=c=0x30241c:size=\(width)x\(height):rate=\(frameRate.numerator)/\(frameRate.denominator),\(title),\(note)[out0];"
            + "anullsrc=channel_layout=stereo:sample_rate=48000[out1]"
    }
}
