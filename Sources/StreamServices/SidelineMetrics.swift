import Metrics

/// Sideline's own metrics, through swift-metrics (exported at `GET /metrics`, see
/// `PrometheusExport`). Every metric is named here, with its labels, so the set stays
/// consistent (Prometheus wants one label set per name).
public enum SidelineMetrics {
    /// Per variant of a stream.
    struct Variant {
        let segments: Counter
        let bytes: Counter
        /// Segments whose bit rate exceeded the BANDWIDTH the master playlist advertises.
        let bandwidthExceeded: Counter
        let writeErrors: Counter
        /// Times the variant's encoder failed.
        let failures: Counter
        /// EXT-X-GAP entries listed (failed variant with `gap`, slate with `gap`, disk errors).
        let gapSegments: Counter
        /// Slots filled with the variant's stand-in card (late segment, or failed with `standin`).
        let standInSegments: Counter
        /// Slots of a failed variant filled with a sibling's segment.
        let siblingSegments: Counter
        /// Real segments that came after their slot was filled, and were dropped.
        let lateSegmentsDropped: Counter
        /// Real segments that came after their slot was filled and took the fill's place in
        /// the recording (a pushed backlog).
        let lateSegmentsRecorded: Counter
        /// Steps below the configured effort the variant's encoder runs at now (0 = as configured).
        let effort: Gauge
        let effortStepsDown: Counter
        let effortStepsUp: Counter
        /// 1 while the rung is shed (served without encoding: `CapacityPlan.shedRungs`), else 0.
        let shed: Gauge

        init(stream: String, variant: String) {
            let labels = [("stream", stream), ("variant", variant)]
            shed = Gauge(label: "sideline_rung_shed", dimensions: labels)
            effort = Gauge(label: "sideline_encoder_effort", dimensions: labels)
            effortStepsDown = Counter(label: "sideline_effort_steps_total", dimensions: labels + [("direction", "down")])
            effortStepsUp = Counter(label: "sideline_effort_steps_total", dimensions: labels + [("direction", "up")])
            segments = Counter(label: "sideline_segments_published_total", dimensions: labels)
            bytes = Counter(label: "sideline_segment_bytes_total", dimensions: labels)
            bandwidthExceeded = Counter(label: "sideline_segment_bandwidth_exceeded_total", dimensions: labels)
            writeErrors = Counter(label: "sideline_segment_write_errors_total", dimensions: labels)
            failures = Counter(label: "sideline_variant_failures_total", dimensions: labels)
            gapSegments = Counter(label: "sideline_gap_segments_total", dimensions: labels)
            standInSegments = Counter(label: "sideline_stand_in_segments_total", dimensions: labels)
            siblingSegments = Counter(label: "sideline_sibling_segments_total", dimensions: labels)
            lateSegmentsDropped = Counter(label: "sideline_late_segments_dropped_total", dimensions: labels)
            lateSegmentsRecorded = Counter(label: "sideline_late_segments_recorded_total", dimensions: labels)
        }
    }

    /// Per stream.
    struct Stream {
        /// From reading a segment's last input frame to the registry serving it.
        let publishLatency: Timer
        let corruptPackets: Counter
        let framesDroppedBySlowVariants: Counter
        let inputFramesDropped: Counter
        let inputFramesRepeated: Counter
        /// Times the live input was lost (and ridden out while reconnecting).
        let inputLosses: Counter
        /// Times the watchdog restarted a pipeline that made no progress.
        let pipelineRestarts: Counter

        init(stream: String) {
            let labels = [("stream", stream)]
            publishLatency = Timer(label: "sideline_publish_latency_seconds", dimensions: labels, preferredDisplayUnit: .seconds)
            corruptPackets = Counter(label: "sideline_input_corrupt_packets_total", dimensions: labels)
            framesDroppedBySlowVariants = Counter(label: "sideline_frames_dropped_by_slow_variants_total", dimensions: labels)
            inputFramesDropped = Counter(label: "sideline_input_frames_dropped_total", dimensions: labels)
            inputFramesRepeated = Counter(label: "sideline_input_frames_repeated_total", dimensions: labels)
            inputLosses = Counter(label: "sideline_input_losses_total", dimensions: labels)
            pipelineRestarts = Counter(label: "sideline_pipeline_restarts_total", dimensions: labels)
        }
    }
}
