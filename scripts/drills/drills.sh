#!/usr/bin/env bash
# The drill matrix (Docs/benchmarks.md, "Players through failures"): each drill x each real
# player, with the policies given, on a release build serving a UDP camera on 127.0.0.1.
# Prints played seconds per wall second and how far each player fell behind per cell.
# Installs what it needs when missing: VLC, Chromium, Varnish and nginx (Debian), streamlink (PyPI).
#   scripts/drills/drills.sh                      every drill with the default policies, plus
#                                                 Apple's gap/stale and the stand-in card for a failed variant
#   DRILLS="fail stall" scripts/drills/drills.sh  only these drills (defaults only)
#   EDGE=varnish scripts/drills/drills.sh         the players through scripts/edge (Config/varnish);
#   EDGE=nginx scripts/drills/drills.sh           or through nginx (Config/nginx)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
scripts/ensure-deps.sh --test
missing=()
for package in vlc chromium varnish nginx; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing missing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v streamlink >/dev/null || python3 -m pip install -q "streamlink==8.6.3"
swift build -c release --product sideline >/dev/null
exec python3 scripts/drills/drills.py "$@"
