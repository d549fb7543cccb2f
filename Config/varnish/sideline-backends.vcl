# Where the Varnish edge sends each request: the origin, or a redundant pair's two boxes.
# scripts/edge writes this file from its --origin and --standby; write your own from this
# example for a pair, and from sideline-backends-boxes.vcl for cameras on several boxes.
# Three things each such file defines, which the edge's rules call:
# - sub sideline_route (in vcl_recv): the box for this request (req.backend_hint), a name
#   for that box (X-Sideline-Box: part of the cache key, so two boxes' objects never mix),
#   and X-Sideline-Pair when the box has a standby to try;
# - sub sideline_other_box (in vcl_backend_fetch, on the second try): the standby;
# - the backends, with timeouts set for HLS: a blocking reload is held at the origin for up
#   to three target durations (6 s at 2 s segments), and a hinted part until it is made.

# A box is judged by its health endpoint once a second: two failures in three and the
# fallback director sends everything to the standby until it answers again. One slow or
# refused request never takes a box out (nginx's max_fails=1 did, on a 503 any client can
# cause).
probe sideline_health {
    .url = "/healthz";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

backend sideline_primary {
    .host = "10.0.0.2";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 10s;
    .probe = sideline_health;
}

backend sideline_standby {
    .host = "10.0.0.3";
    .port = "8080";
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 10s;
    .probe = sideline_health;
}

sub vcl_init {
    new sideline_pair = directors.fallback();
    sideline_pair.add_backend(sideline_primary);
    sideline_pair.add_backend(sideline_standby);
}

sub sideline_route {
    set req.backend_hint = sideline_pair.backend();
    set req.http.X-Sideline-Box = "pair";
    set req.http.X-Sideline-Pair = "1";
}

sub sideline_other_box {
    set bereq.backend = sideline_standby;
}
