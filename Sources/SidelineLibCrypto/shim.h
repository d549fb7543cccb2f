// OpenSSL's libcrypto (Debian's libssl-dev), for the one primitive Sideline needs from it:
// HMAC-SHA256 over viewer credentials and signed URLs (OriginAccess, AccessCredential+MAC).
// The system's library instead of swift-crypto, whose own copy of BoringSSL made every clean
// build 47 s longer on two cores (2026-12-07, Docs/benchmarks.md, "CI time on a clean clone").
#include <openssl/evp.h>
#include <openssl/hmac.h>
