import PipelineCore
import Testing

@Suite struct FrameRateTests {
    @Test(arguments: [(30.0, 30, 1), (29.97, 30000, 1001), (59.94, 60000, 1001), (23.976, 24000, 1001), (25.0, 25, 1), (12.5, 12500, 1000)])
    func decimalRatesBecomeExactFractions(value: Double, numerator: Int, denominator: Int) {
        #expect(FrameRate(value) == FrameRate(numerator: numerator, denominator: denominator))
    }
}

@Suite struct SegmentClockTests {
    @Test func boundariesFallOnEveryKTimesDAtThirtyFPS() {
        let clock = SegmentClock(frameRate: FrameRate(30), segmentDuration: 2)
        let starts = (0..<300).filter { clock.startsSegment(frame: Int64($0)) }
        #expect(starts == [0, 60, 120, 180, 240])
        #expect(clock.segment(ofFrame: 59) == 0)
        #expect(clock.segment(ofFrame: 60) == 1)
        #expect(clock.maximumFramesPerSegment == 60)
    }

    /// At 29.97 fps a 2 s boundary falls between frames: the cut is the first frame at or after it.
    @Test func boundariesAtNTSCRatesAreTheFirstFrameAtOrAfterKTimesD() {
        let rate = FrameRate(29.97)
        let clock = SegmentClock(frameRate: rate, segmentDuration: 2)
        let starts = (0..<400).filter { clock.startsSegment(frame: Int64($0)) }
        for (k, frame) in starts.enumerated() {
            let time = rate.time(ofFrame: Int64(frame))
            #expect(time >= Double(k) * 2 - 1e-9)
            #expect(rate.time(ofFrame: Int64(frame) - 1) < Double(k) * 2 || frame == 0)
        }
        #expect(starts.prefix(4) == [0, 60, 120, 180])
        #expect(clock.maximumFramesPerSegment == 60)
    }

    @Test func fractionalSegmentDurations() {
        let clock = SegmentClock(frameRate: FrameRate(25), segmentDuration: 1.5)
        #expect((0..<200).filter { clock.startsSegment(frame: Int64($0)) }.prefix(4) == [0, 38, 75, 113])
    }
}

@Suite struct FrameRateConformerTests {
    @Test func steadyInputMapsOneToOne() {
        var conformer = FrameRateConformer(frameRate: FrameRate(30))
        for n in 0..<90 {
            #expect(conformer.place(inputTime: Double(n) / 30) == Int64(n)..<Int64(n + 1))
        }
        #expect(conformer.dropped == 0 && conformer.repeated == 0 && conformer.jumps == 0)
    }

    @Test func sixtyFPSInputIsHalved() {
        var conformer = FrameRateConformer(frameRate: FrameRate(30))
        var indices: [Int64] = []
        for n in 0..<120 { indices += Array(conformer.place(inputTime: Double(n) / 60)) }
        // Two seconds of 60 fps input fill output slots 0...60 (the last input frame, at
        // 1.983 s, is nearest to slot 60), each exactly once.
        #expect(indices == Array(0...60))
        #expect(conformer.dropped == 59)
    }

    @Test func smallHolesAreFilledAndBigJumpsReanchored() {
        var conformer = FrameRateConformer(frameRate: FrameRate(30), maximumGap: 1)
        _ = conformer.place(inputTime: 0)
        // 5 frames missing: the next frame fills its slot and the hole.
        #expect(conformer.place(inputTime: 6.0 / 30) == 1..<7)
        #expect(conformer.repeated == 5)
        // The camera's clock jumps an hour ahead: output time just goes on.
        #expect(conformer.place(inputTime: 3600) == 7..<8)
        #expect(conformer.place(inputTime: 3600 + 1.0 / 30) == 8..<9)
        // ... and back again (a wrap).
        #expect(conformer.place(inputTime: 0.5) == 9..<10)
        #expect(conformer.jumps == 2)
    }

    @Test func variableFrameRateInputBecomesConstant() {
        var conformer = FrameRateConformer(frameRate: FrameRate(30))
        var time = 0.0
        var indices: [Int64] = []
        for step in [0.030, 0.036, 0.031, 0.040, 0.028, 0.033, 0.034, 0.032, 0.035, 0.030] {
            indices += Array(conformer.place(inputTime: time))
            time += step
        }
        #expect(indices == Array(0..<Int64(indices.count)), "output indices are consecutive, no gaps or repeats")
    }
}

@Suite struct InputKindTests {
    @Test(arguments: [
        ("Samples/sample.mp4", InputKind.file(path: "Samples/sample.mp4")),
        ("/srv/match.ts", .file(path: "/srv/match.ts")),
        ("/dev/video0", .device(format: "video4linux2", path: "/dev/video0")),
        ("rtsp://10.0.0.5/stream1", .url("rtsp://10.0.0.5/stream1")),
        ("udp://@:5000", .url("udp://@:5000")),
        ("srt://camera:9000?mode=caller", .url("srt://camera:9000?mode=caller")),
        ("testpattern", .testPattern),
        ("TestPattern", .testPattern),
    ])
    func inputsAreClassified(input: String, kind: InputKind) {
        #expect(InputKind(classifying: input) == kind)
        #expect(kind.needsPacing == (input.hasPrefix("Samples") || input.hasPrefix("/srv") || input.lowercased() == "testpattern"))
    }

    /// Sound devices through libavdevice; other devices; and which kinds ride out a loss
    /// (reconnecting with the slate on air) instead of ending.
    @Test(arguments: [
        ("alsa:hw:1,0", InputKind.device(format: "alsa", path: "hw:1,0"), true),
        ("pulse:default", .device(format: "pulse", path: "default"), true),
        // No device name, or a URL scheme: not a sound device.
        ("alsa:", .file(path: "alsa:"), false),
        ("pulse://host/source", .url("pulse://host/source"), true),
        ("/dev/dvb0", .device(format: "", path: "/dev/dvb0"), true),
        ("rtsp://10.0.0.5/stream1", .url("rtsp://10.0.0.5/stream1"), true),
        ("/srv/match.ts", .file(path: "/srv/match.ts"), false),
        ("testpattern", .testPattern, false),
    ])
    func soundDevicesAndWhichInputsReconnect(input: String, kind: InputKind, reconnects: Bool) {
        #expect(InputKind(classifying: input) == kind)
        #expect(kind.reconnects == reconnects)
        #expect(kind.needsPacing == !reconnects, "a live source paces itself; everything else is paced")
    }

    /// What the operator is told when an input cannot be opened names the tool to check it with.
    @Test(arguments: [
        (InputKind.file(path: "a.mp4"), "ffprobe <file>"),
        (.device(format: "alsa", path: "hw:1,0"), "arecord -l"),
        (.device(format: "video4linux2", path: "/dev/video0"), "v4l2-ctl --list-devices"),
        (.url("srt://camera:9000"), "ffprobe <url>"),
        (.testPattern, "fonts-dejavu-core"),
        (.slate(width: 1280, height: 720), "libavfilter"),
    ])
    func openFailureHintsNameTheCheck(kind: InputKind, check: String) {
        #expect(kind.openFailureHint.contains(check), "\(kind.openFailureHint)")
    }
}

@Suite struct AnnexBTests {
    @Test func nalUnitsAreSplitOnThreeAndFourByteStartCodes() {
        let bytes: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1F, 0, 0, 1, 0x68, 0xEE, 0, 0, 0, 1, 0x65, 0x88]
        let units = bytes.withUnsafeBufferPointer { buffer in AnnexB.nalUnits(in: buffer).map { Array($0) } }
        #expect(units == [[0x67, 0x64, 0x00, 0x1F], [0x68, 0xEE], [0x65, 0x88]])
    }
}

@Suite struct LatencyRecorderTests {
    @Test func percentilesByNearestRank() {
        let recorder = LatencyRecorder()
        #expect(recorder.percentile(50) == nil)
        for value in (1...100).reversed() { recorder.record(Double(value)) }
        #expect(recorder.percentile(50) == 50)
        #expect(recorder.percentile(99) == 99)
        #expect(recorder.percentile(100) == 100)
        #expect(recorder.percentile(0) == 1)
        #expect(recorder.count == 100)
    }

    @Test func segmentTimingsForgetOldSegments() {
        let timings = SegmentTimings()
        for k in 0..<100 { timings.markInputComplete(segment: k) }
        #expect(timings.inputCompletion(segment: 99) != nil)
        #expect(timings.inputCompletion(segment: 100 - SegmentTimings.retained) != nil)
        #expect(timings.inputCompletion(segment: 99 - SegmentTimings.retained) == nil)
    }
}
