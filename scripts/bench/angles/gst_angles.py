#!/usr/bin/python3
"""gst_angles.py URL [playbin|playbin3] [SWITCH_TO_INDEX]: plays URL with fakesinks for 16 s and
prints the stream collection GStreamer offers (playbin3), the video streams (playbin), the
position reached, and, with a switch index, asks playbin3 to select that video stream at 6 s.
Which angle's segments it then fetches is in the server's request log (--log-level debug).
Docs/operations.md, "Angle sets", "Players". Needs Debian's python3-gi and
gir1.2-gst-plugins-base-1.0; run with /usr/bin/python3."""
import sys, time
import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst, GLib
Gst.init(None)
url, element = sys.argv[1], sys.argv[2]
switch = int(sys.argv[3]) if len(sys.argv) > 3 else None
pipe = Gst.ElementFactory.make(element)
pipe.set_property('uri', url)
pipe.set_property('video-sink', Gst.ElementFactory.make('fakesink'))
pipe.set_property('audio-sink', Gst.ElementFactory.make('fakesink'))
bus = pipe.get_bus()
pipe.set_state(Gst.State.PLAYING)
collection = None
start = time.monotonic()
switched = False
while time.monotonic() - start < 16:
    msg = bus.timed_pop(100 * Gst.MSECOND)
    if msg:
        if msg.type == Gst.MessageType.STREAM_COLLECTION:
            collection = msg.parse_stream_collection()
            print("collection:", [(collection.get_stream(i).get_stream_type().first_value_nick, (collection.get_stream(i).get_tags() or Gst.TagList.new_empty()).to_string())
                                   for i in range(collection.get_size())])
        elif msg.type == Gst.MessageType.STREAMS_SELECTED:
            sel = msg.streams_selected_get_size()
            print("selected:", [msg.streams_selected_get_stream(i).get_stream_id()[-20:] for i in range(sel)], "at", round(time.monotonic() - start, 1))
        elif msg.type == Gst.MessageType.ERROR:
            print("error:", msg.parse_error()); break
    if switch is not None and not switched and time.monotonic() - start > 6 and collection:
        videos = [collection.get_stream(i) for i in range(collection.get_size()) if collection.get_stream(i).get_stream_type() & Gst.StreamType.VIDEO]
        audios = [collection.get_stream(i) for i in range(collection.get_size()) if collection.get_stream(i).get_stream_type() & Gst.StreamType.AUDIO]
        ids = [videos[switch].get_stream_id()] + ([audios[0].get_stream_id()] if audios else [])
        print("switching to video", switch, pipe.send_event(Gst.Event.new_select_streams(ids)))
        switched = True
ok, position = pipe.query_position(Gst.Format.TIME)
print("position:", round(position / Gst.SECOND, 1) if ok else None)
if element == 'playbin':
    print("n-video:", pipe.get_property('n-video'), "n-audio:", pipe.get_property('n-audio'), "current-video:", pipe.get_property('current-video'))
    for i in range(pipe.get_property('n-video')):
        tags = pipe.emit('get-video-tags', i)
        print(" video", i, tags.to_string() if tags else None)
pipe.set_state(Gst.State.NULL)
