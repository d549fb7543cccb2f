// OpenSSL's libcrypto (Debian's libssl-dev), for the one primitive Sideline needs from it:
// HMAC-SHA256 over viewer credentials and signed URLs (OriginAccess, AccessCredential+MAC).
// The system's library instead of swift-crypto, whose own copy of BoringSSL was about 90 s of
// every clean build on two cores (2026-12-07, Docs/benchmarks.md, "Build time").
#include <openssl/evp.h>
#include <openssl/hmac.h>
