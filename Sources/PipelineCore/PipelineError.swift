/// Why a stream could not start or had to stop, phrased for the operator: which input,
/// what is wrong, and what to do about it.
public enum PipelineError: Error, CustomStringConvertible, Sendable {
    case inputFileMissing(input: String)
    case inputUnopenable(input: String, reason: String, hint: String)
    case noVideoStream(input: String, found: [String])
    case noAudioStream(input: String, found: [String])
    case unsupportedCodec(input: String, codec: String)
    case encoderUnavailable(name: String)
    case encoderSetupFailed(variant: String, reason: String)
    case readFailed(input: String, reason: String)
    case internalFailure(String)

    public var description: String {
        switch self {
        case let .inputFileMissing(input):
            "input '\(input)': no such file. Give an existing file, device or URL with --input or stream.input in the config."
        case let .inputUnopenable(input, reason, hint):
            "input '\(input)' cannot be opened: \(reason). \(hint)"
        case let .noVideoStream(input, found):
            "input '\(input)' has no video stream" + (found.isEmpty ? "" : " (it holds: \(found.joined(separator: ", ")))")
                + ". Sideline needs a video stream; give a camera, file or URL that carries video."
        case let .noAudioStream(input, found):
            "audio input '\(input)' has no audio stream" + (found.isEmpty ? "" : " (it holds: \(found.joined(separator: ", ")))")
                + ". Give an ALSA device such as alsa:hw:1,0 (list them with arecord -l), or leave stream.audio_input empty to take the sound of the main input."
        case let .unsupportedCodec(input, codec):
            codec == "none"
                ? "input '\(input)': its video codec is one FFmpeg does not recognise, so it cannot be decoded. Check the source with ffprobe, or transcode it to H.264."
                : "input '\(input)': no decoder for its video codec '\(codec)' in this FFmpeg build. Transcode the source or install a libavcodec with that decoder."
        case let .encoderUnavailable(name):
            "the FFmpeg libraries on this machine have no '\(name)' encoder. Install Debian's libavcodec-extra or a libavcodec built with it."
        case let .encoderSetupFailed(variant, reason):
            "variant '\(variant)': the encoder could not be set up: \(reason). Check this variant's settings in the config."
        case let .readFailed(input, reason):
            "input '\(input)' failed while reading: \(reason)"
        case let .internalFailure(text):
            "internal pipeline failure: \(text)"
        }
    }
}
