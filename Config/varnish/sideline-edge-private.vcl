# The Varnish edge cache for an origin with private streams (streams[].viewer_token): use
# this file instead of sideline-edge.vcl, with sideline-edge-common.vcl and a
# sideline-backends.vcl beside it (`scripts/edge --private --origin 10.0.0.2:8080`).
#
# The origin decides every request, as with Config/nginx/sideline-edge-private.conf: before
# the cache is looked at, the edge asks the request's box (GET /api/access, with the URL in
# X-Original-URI and the viewer's Authorization) whether this URL with these credentials may
# be answered. 401 and 403 reach the player as the origin gave them. On its 204, the request
# starts again (a restart) with what the origin named: X-Sideline-Resource, the canonical
# path without the credential, is the cache key; X-Sideline-Target, the same with it, is what
# the box is asked. A viewer cannot send those headers itself: they are removed on arrival.
#
# What is stored: segments and parts (200, video/mp2t), shared by every viewer the origin
# let in (the key has no credential), for as long as X-Accel-Expires says when it is sent (a
# part of the segment being made: a second; a restarted server makes it again) and a year
# otherwise. Playlists, refusals and 404s go to the origin every time, as through the nginx
# private edge: a playlist can differ by credential (a master limited to one variant, backup
# URLs carrying the credential) and a stored 404 is what another spelling could poison.
#
# Why `private` is ignored for segments: the origin marks every answer of a private stream
# `Cache-Control: private` and `Vary: Authorization`, so that no shared cache that is not ours
# keeps it. This edge never answers from its cache without first asking the origin about this
# very request, so it stores segments whatever they say, without the Vary (one copy, not one
# per bearer token), and hands the origin's headers on unchanged.
#
# What it costs: one small request to the origin per player request (no body). When the
# origin cannot be reached, nothing is served: an edge cannot tell who may watch without it.
# Tested by VarnishEdgeEndToEndTests with real varnishd.
vcl 4.1;

import std;
import directors;

include "./sideline-backends.vcl";
include "./sideline-edge-common.vcl";

sub vcl_recv {
    if (req.restarts == 0) {
        # Only the access question's answer may set these, never the viewer.
        unset req.http.X-Sideline-Resource;
        unset req.http.X-Sideline-Target;
        unset req.http.X-Sideline-Asked;
        call sideline_route;
        set req.http.X-Original-URI = req.url;
        set req.http.X-Sideline-Asked = "access";
        set req.url = "/api/access";
        return (pass);
    }
    # The origin let this request in (vcl_deliver below); X-Sideline-Asked says so.
    unset req.http.X-Sideline-Asked;
    set req.url = req.http.X-Original-URI;
    call sideline_route;
    if ((req.method != "GET" && req.method != "HEAD") || req.url ~ "^/api/") {
        return (pass);
    }
    call sideline_query;
    if (req.http.X-Sideline-Target) {
        set req.url = req.http.X-Sideline-Target + req.http.X-Sideline-Query;
    } else {
        set req.url = regsub(req.url, "\?.*$", "") + req.http.X-Sideline-Query;
    }
    unset req.http.Cookie;
    # Only segments and parts are shared; playlists and everything else go through.
    if (!req.http.X-Sideline-Resource || req.url !~ "\.ts(\?|$)") {
        return (pass);
    }
    return (hash);
}

sub vcl_hash {
    hash_data(req.http.X-Sideline-Box);
    hash_data(req.http.X-Sideline-Resource + req.http.X-Sideline-Query);
    return (lookup);
}

sub vcl_backend_fetch {
    if (bereq.retries > 0) {
        call sideline_other_box;
    }
    unset bereq.http.X-Sideline-Query;
}

sub vcl_backend_response {
    call sideline_retry_response;
    if (!beresp.uncacheable && beresp.status == 200 && beresp.http.Content-Type == "video/mp2t") {
        set beresp.ttl = std.duration(beresp.http.X-Accel-Expires + "s", 365d);
        unset beresp.http.X-Accel-Expires;
        set beresp.grace = 10s;
        # The viewer gets the origin's Vary; the stored copy is one for every viewer.
        set beresp.http.X-Sideline-Vary = beresp.http.Vary;
        unset beresp.http.Vary;
        return (deliver);
    }
    # The access question, playlists (passed) and anything not a segment: nothing kept.
    set beresp.uncacheable = true;
    call sideline_lifetimes;
}

sub vcl_backend_error {
    call sideline_retry_error;
}

sub vcl_deliver {
    if (req.http.X-Sideline-Asked == "access") {
        if (resp.status == 204) {
            # Copied only when named: a copy of a missing header is an empty one, which counts
            # as present, and every URL the origin could not normalise would share one key.
            if (resp.http.X-Sideline-Resource) {
                set req.http.X-Sideline-Resource = resp.http.X-Sideline-Resource;
            }
            if (resp.http.X-Sideline-Target) {
                set req.http.X-Sideline-Target = resp.http.X-Sideline-Target;
            }
            return (restart);
        }
        # 401, 403, or the origin unreachable: the viewer gets that answer.
        return (deliver);
    }
    if (resp.http.X-Sideline-Vary) {
        set resp.http.Vary = resp.http.X-Sideline-Vary;
        unset resp.http.X-Sideline-Vary;
    }
    call sideline_cache_status;
}
