# sideline-backends.vcl for a venue of several boxes, each encoding cameras of its own
# (`boxes` in each box's config; Docs/operations.md, "Cameras on several boxes"): copy it as
# sideline-backends.vcl beside sideline-edge.vcl (or sideline-edge-private.vcl) and run
# `scripts/edge --backends <that file>`. Each request goes to the box that serves the
# stream its path names, and everything else (the angle sets, the page, the API) to the first
# box, which serves the sets, as Config/nginx/sideline-edge-boxes.conf's map does. The box's
# name is part of every cache key: another spelling of a stream's URL that this match sends
# to the wrong box finds nothing stored under the right box's name (with private streams,
# the wrong box knows nothing of the stream and answers 404).
# A box that is a redundant pair: its two backends under a fallback director, as in
# sideline-backends.vcl, and X-Sideline-Pair set in its branch of sideline_route.

probe sideline_health {
    .url = "/healthz";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

backend sideline_box_a {
    .host = "10.0.0.2";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 10s;
    .probe = sideline_health;
}

backend sideline_box_b {
    .host = "10.0.0.12";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 10s;
    .probe = sideline_health;
}

sub sideline_route {
    unset req.http.X-Sideline-Pair;
    # Name every stream a box other than the first encodes (here: goal and tunnel on box b).
    if (req.url ~ "^(/access/[^/]+)?/(live|vod)/(goal|tunnel)/" || req.url ~ "^(/access/[^/]+)?/api/streams/(goal|tunnel)(/|$)") {
        set req.backend_hint = sideline_box_b;
        set req.http.X-Sideline-Box = "b";
    } else {
        set req.backend_hint = sideline_box_a;
        set req.http.X-Sideline-Box = "a";
    }
}

sub sideline_other_box {
    # No box here has a standby: a second try goes where the first did.
}
