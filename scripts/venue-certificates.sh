#!/usr/bin/env bash
# Makes a venue CA (once) and a server certificate signed by it, for server.tls, with openssl.
# The certificate meets what iPadOS, iOS and macOS ask of a TLS server certificate: SHA-256,
# an ECDSA P-256 key, the server's names and addresses in subjectAltName, extendedKeyUsage
# serverAuth, and at most 397 days of validity. Docs/operations.md ("TLS") says how to install
# the CA on iPads and Macs. The tests run this script, so what the docs show is what is tested.
#
#   scripts/venue-certificates.sh DIR NAME_OR_IP... [--days N]
#
# DIR/ca.key, DIR/ca.pem: the venue CA (kept: run again to renew the server certificate only).
# DIR/server.key, DIR/server.pem: server.tls.key and server.tls.certificate.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DIR NAME_OR_IP... [--days N]" >&2; exit 2; }
dir=$1; shift
days=397
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --days) days=$2; shift 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
mkdir -p "$dir"
umask 077

if [ ! -f "$dir/ca.key" ]; then
  openssl ecparam -name prime256v1 -genkey -noout -out "$dir/ca.key"
  openssl req -x509 -new -key "$dir/ca.key" -sha256 -days 3650 -subj "/CN=Sideline venue CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$dir/ca.pem"
fi

san=""
for name in "${names[@]}"; do
  if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then san+="IP:$name,"; else san+="DNS:$name,"; fi
done
openssl ecparam -name prime256v1 -genkey -noout -out "$dir/server.key.new"
openssl req -new -key "$dir/server.key.new" -subj "/CN=${names[0]}" -out "$dir/server.csr"
printf 'subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' "${san%,}" > "$dir/server.ext"
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -sha256 -days "$days" \
  -extfile "$dir/server.ext" -out "$dir/server.pem.new" 2>/dev/null
# Moved into place one after the other: a server reloading between the two sees a key that is
# not its certificate's and keeps what it had (TLSIdentity). Send SIGHUP after this script ends.
mv "$dir/server.key.new" "$dir/server.key"
mv "$dir/server.pem.new" "$dir/server.pem"
rm -f "$dir/server.csr" "$dir/server.ext"
chmod 644 "$dir/ca.pem" "$dir/server.pem"
echo "CA (install on iPads and Macs): $dir/ca.pem"
echo "server.tls.certificate: $dir/server.pem"
echo "server.tls.key: $dir/server.key"
