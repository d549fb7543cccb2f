# What the open and the private Varnish edges share (sideline-edge.vcl,
# sideline-edge-private.vcl include this file): the one spelling of a player's query, the
# lifetimes of what is stored, a pair's second try, and the X-Cache-Status header.
# Docs/operations.md, "The low-latency edge (Varnish)".

# The query the origin is asked and the object is stored under: only the values that change
# the answer, in one order. A live playlist's answer depends on _HLS_msn, _HLS_part and
# _HLS_skip (draft-pantos-hls-rfc8216bis section 6.2.5); a recording's window (/vod/) on
# start and end. Anything else a player adds (CMCD in query mode, a cache buster, a session
# ID) would make every player's request an object of its own and a request of its own at the
# origin: it is dropped here, and the origin never sees it. A value given twice counts once
# (the last), as the edge reads it.
sub sideline_query {
    set req.http.X-Sideline-Query = "";
    if (req.url ~ "\?") {
        if (req.url ~ "[?&]_HLS_msn=") {
            set req.http.X-Sideline-Query = req.http.X-Sideline-Query + "&_HLS_msn=" + regsub(req.url, "^.*[?&]_HLS_msn=([^&#]*).*$", "\1");
        }
        if (req.url ~ "[?&]_HLS_part=") {
            set req.http.X-Sideline-Query = req.http.X-Sideline-Query + "&_HLS_part=" + regsub(req.url, "^.*[?&]_HLS_part=([^&#]*).*$", "\1");
        }
        if (req.url ~ "[?&]_HLS_skip=") {
            set req.http.X-Sideline-Query = req.http.X-Sideline-Query + "&_HLS_skip=" + regsub(req.url, "^.*[?&]_HLS_skip=([^&#]*).*$", "\1");
        }
        if (req.url ~ "^(/access/[^/?]+)?/vod/") {
            if (req.url ~ "[?&]start=") {
                set req.http.X-Sideline-Query = req.http.X-Sideline-Query + "&start=" + regsub(req.url, "^.*[?&]start=([^&#]*).*$", "\1");
            }
            if (req.url ~ "[?&]end=") {
                set req.http.X-Sideline-Query = req.http.X-Sideline-Query + "&end=" + regsub(req.url, "^.*[?&]end=([^&#]*).*$", "\1");
            }
        }
        set req.http.X-Sideline-Query = regsub(req.http.X-Sideline-Query, "^&", "?");
    }
}

# What is stored and for how long. The origin's Cache-Control says it for every answer
# (Docs/status-codes.md): live playlists half a target duration, segments a year, a part of
# the segment being made a second, 404 and 503 a second, and `no-store` for what no cache may
# keep (a part not made yet, a 429 that is one player's). Three things Varnish would do on its
# own are changed, and the built-in rules after this are never reached (`return (deliver)`):
# - Varnish ignores `no-store` and `private` when it works out a lifetime (a 404 gets its
#   default two minutes) and then makes such an answer a "hit-for-miss" marker for two minutes,
#   during which requests for that URL no longer wait for each other: one request for a part a
#   moment too early (404, no-store), or one player's 429, would have sent every player's
#   request for that part to the origin for two minutes. Here such an answer goes to the one
#   who asked and leaves no marker (a lifetime of 0): the next request fetches for everyone
#   waiting (VarnishEdgeEndToEndTests asks for a part before it is made, then a crowd asks).
# - Grace (serving a stale copy while one request refreshes it, or while the origin cannot be
#   reached) is kept to what a player can use: 10 s for a 200, so players keep playing through
#   a short outage, as nginx's proxy_cache_use_stale did; none for a refusal, so a stale 404
#   is never handed out while a listed segment is fetched.
sub sideline_lifetimes {
    if (beresp.uncacheable || beresp.ttl <= 0s || beresp.http.Cache-Control ~ "(?i)no-store|no-cache|private" ||
        beresp.http.Set-Cookie || beresp.http.Vary == "*") {
        set beresp.uncacheable = true;
        set beresp.ttl = 0s;
        set beresp.grace = 0s;
        return (deliver);
    }
    if (beresp.status != 200) {
        set beresp.grace = 0s;
        return (deliver);
    }
    set beresp.grace = 10s;
    # Playlists are revalidated with their ETag (304 when nothing changed) for as long as
    # they are kept.
    set beresp.keep = 10s;
    return (deliver);
}

# A redundant pair (sideline-backends.vcl: a route whose box has a standby sets
# X-Sideline-Pair): what the box asked cannot answer goes to the other box once, as nginx's
# proxy_next_upstream did. A connection refused or timed out (vcl_backend_error), an answer
# 502 or 504, and a 404 for a segment or part (a box that was down lists the slots it
# missed as EXT-X-GAP, which its peer has). A 503 is not retried: a box answers 503 for
# ordinary reasons (starting, draining, more clips than it makes at once) that say nothing
# of its health, and the other box would only say the same. Nothing here marks a box down:
# its health probe alone does (sideline-backends.vcl).
sub sideline_retry_response {
    if (bereq.retries == 0 && bereq.http.X-Sideline-Pair &&
        (beresp.status == 502 || beresp.status == 504 || (beresp.status == 404 && bereq.url ~ "\.ts(\?|$)"))) {
        return (retry);
    }
}

sub sideline_retry_error {
    if (bereq.retries == 0 && bereq.http.X-Sideline-Pair) {
        return (retry);
    }
}

# HIT, MISS, PASS (or HIT-WAIT: the request waited for another's fetch): what the edge did,
# for diagnosis, as the nginx edge's X-Cache-Status.
sub sideline_cache_status {
    if (obj.uncacheable) {
        set resp.http.X-Cache-Status = "PASS";
    } else if (obj.hits > 0) {
        set resp.http.X-Cache-Status = "HIT";
    } else {
        set resp.http.X-Cache-Status = "MISS";
    }
    unset resp.http.Via;
    unset resp.http.X-Varnish;
    # No Age on a playlist: hls.js reads it as the playlist's staleness at a CDN and moves the
    # point where it tunes in ("CDN tune-in goal"). A playlist here is at most its max-age old
    # and a blocking reload is fresh. Measured with hls.js alone in low-latency mode, six runs
    # each through this edge with and without Age, alternated (Docs/benchmarks.md, issue 43):
    # median 1.29 s behind the camera with it (one run settled 5.1 s behind), 1.15 s without.
    if (req.url ~ "\.m3u8(\?|$)") {
        unset resp.http.Age;
    }
}
