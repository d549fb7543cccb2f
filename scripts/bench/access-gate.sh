#!/usr/bin/env bash
# The viewer-access gate's own cost per request (Docs/benchmarks.md, "Viewer access"): the
# gate's sources and OriginPolicy, optimised, against swift-crypto from the release build.
# What a request costs in all is scripts/bench/serve-benchmark.sh with ACCESS=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product sideline 2>/dev/null | grep -v warning || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
release=.build/release
swiftc -O -emit-library -static -emit-module -parse-as-library -module-name HLSPlaylist Sources/HLSPlaylist/*.swift -o "$work/libHLSPlaylist.a" -emit-module-path "$work/HLSPlaylist.swiftmodule"
swiftc -O -emit-library -static -emit-module -parse-as-library -module-name OriginPolicy -I "$work" Sources/OriginPolicy/*.swift -o "$work/libOriginPolicy.a" -emit-module-path "$work/OriginPolicy.swiftmodule"
swiftc -O -emit-library -static -emit-module -parse-as-library -module-name OriginAccess -I "$work" -I "$release/Modules" Sources/OriginAccess/*.swift \
  -o "$work/libOriginAccess.a" -emit-module-path "$work/OriginAccess.swiftmodule"
# swift-crypto's objects as the release build made them (Swift, BoringSSL, XKCP), and the C++ runtime BoringSSL needs.
objects=$(find $release/Crypto.build $release/CryptoBoringWrapper.build $release/CCryptoBoringSSL.build $release/CCryptoBoringSSLShims.build $release/CXKCP*.build -name "*.o")
swiftc -O -parse-as-library -I "$work" -I "$release/Modules" scripts/bench/access_gate.swift -L "$work" -lOriginAccess -lOriginPolicy -lHLSPlaylist $objects -lstdc++ -o "$work/bench"
"$work/bench"
"$work/bench"
