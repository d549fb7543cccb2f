// The one place that knows FFmpeg's macros. Swift cannot import function-like or
// tag-built macros (AVERROR, AVERROR_EOF, AV_NOPTS_VALUE, av_err2str, ...), so each
// gets a static inline function or constant here; everything above sees plain values.
#ifndef SIDELINE_CFFMPEG_SHIM_H
#define SIDELINE_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

static inline int sideline_averror(int posixErrno) { return AVERROR(posixErrno); }
static inline int sideline_averror_eof(void) { return AVERROR_EOF; }
static inline int sideline_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int sideline_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int sideline_averror_exit(void) { return AVERROR_EXIT; }
static inline int64_t sideline_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational sideline_time_base_q(void) { return (AVRational){1, AV_TIME_BASE}; }

/// av_err2str without the compound-literal macro: writes into the caller's buffer.
static inline const char *sideline_error_string(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
    return buffer;
}

/// Default stereo layout (AV_CHANNEL_LAYOUT_STEREO is a compound-literal macro).
static inline void sideline_stereo_layout(AVChannelLayout *layout) {
    av_channel_layout_default(layout, 2);
}

/// Interrupt callback adapter: lets a Swift-owned flag abort blocking libavformat I/O
/// (opening or reading a network input) when the pipeline stops or a timeout passes.
typedef int (*sideline_interrupt_fn)(void *opaque);
static inline void sideline_set_interrupt(AVFormatContext *ctx, sideline_interrupt_fn fn, void *opaque) {
    ctx->interrupt_callback.callback = fn;
    ctx->interrupt_callback.opaque = opaque;
}

#endif
