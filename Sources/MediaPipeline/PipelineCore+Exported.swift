// The pipeline's API speaks PipelineCore's values (a `PipelineConfiguration` in, `PipelineEvent`s
// out, `FrameRate`, `SegmentClock`, `BitRateControl`, ...), so whoever drives a pipeline gets
// them with `import MediaPipeline`, as it did before they moved out of this FFmpeg target. A
// target that needs only those values imports PipelineCore itself and links no FFmpeg.
@_exported import PipelineCore
