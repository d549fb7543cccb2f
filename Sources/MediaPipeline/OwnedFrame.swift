import CFFmpeg

/// An AVFrame handed from one pipeline thread to another.
///
/// Why `@unchecked Sendable` is sound: the sender makes a fresh reference (`av_frame_clone`)
/// for each receiver and never touches it again; the receiver is then its only user and frees
/// it in `deinit`. The reference-counted pixel buffers behind it are read-only from then on,
/// and libavutil's reference counting is atomic.
final class OwnedFrame: @unchecked Sendable {
    private(set) var pointer: UnsafeMutablePointer<AVFrame>?

    init?(cloning frame: UnsafePointer<AVFrame>) {
        guard let clone = av_frame_clone(frame) else { return nil }
        pointer = clone
    }

    deinit { av_frame_free(&pointer) }
}

/// An AVPacket handed between pipeline threads; sound for the same reason as `OwnedFrame`.
final class OwnedPacket: @unchecked Sendable {
    private(set) var pointer: UnsafeMutablePointer<AVPacket>?

    init?(cloning packet: UnsafePointer<AVPacket>) {
        guard let clone = av_packet_clone(packet) else { return nil }
        pointer = clone
    }

    deinit { av_packet_free(&pointer) }
}
