# The Varnish edge cache in front of Sideline, for open streams: the edge for Low-Latency
# HLS players (Docs/operations.md, "The low-latency edge (Varnish)"). Start it with
#
#   scripts/edge --origin 10.0.0.2:8080            (--standby 10.0.0.3:8080 for a pair)
#
# which writes sideline-backends.vcl beside a copy of these files and runs varnishd; or copy
# this file, sideline-edge-common.vcl and a sideline-backends.vcl of your own (the example
# beside this file) to one folder and run `varnishd -f <folder>/sideline-edge.vcl`.
# With any viewer_token, use sideline-edge-private.vcl instead.
#
# Why Varnish for low latency: every player at the live edge asks for the same next part
# and the same next playlist version at the same moment. Varnish lets one request per object
# through to the origin and parks the others on that object's waiting list, wakes them the
# moment the origin's answer arrives (no timer), and streams the object to them while it
# is still arriving. nginx's proxy_cache_lock wakes waiting requests on a 500 ms timer and
# cannot hand on an object still arriving (Docs/benchmarks.md, "The venue").
#
# Lifetimes are the origin's (Cache-Control, Docs/status-codes.md), as in the nginx edge.
# The object is the path as sent plus the HLS directives in one order (sideline_query):
# player-specific query values never make an object or an origin request of their own.
# Tested by VarnishEdgeEndToEndTests with real varnishd, Sideline and players.
vcl 4.1;

import std;
import directors;

include "./sideline-backends.vcl";
include "./sideline-edge-common.vcl";

sub vcl_recv {
    call sideline_route;
    # Writes (markers, clips, ingest, admin) and the API go to the box as they are.
    if ((req.method != "GET" && req.method != "HEAD") || req.url ~ "^/api/") {
        return (pass);
    }
    # The path exactly as sent: another spelling is another object, whose answer is the
    # origin's answer to that spelling (as the nginx edge keys $request_uri).
    call sideline_query;
    set req.url = regsub(req.url, "\?.*$", "") + req.http.X-Sideline-Query;
    unset req.http.X-Sideline-Query;
    # A viewer's headers never decide what is stored: the answer is the same for every one.
    unset req.http.Cookie;
    return (hash);
}

sub vcl_hash {
    # Not the Host header: players that name the edge by address and by name share objects.
    hash_data(req.http.X-Sideline-Box);
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_fetch {
    if (bereq.retries > 0) {
        call sideline_other_box;
    }
}

sub vcl_backend_response {
    call sideline_retry_response;
    call sideline_lifetimes;
}

sub vcl_backend_error {
    call sideline_retry_error;
}

sub vcl_deliver {
    call sideline_cache_status;
}
