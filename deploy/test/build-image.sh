#!/bin/sh
# Builds the router's image where no image registry is reachable: a Debian bookworm rootfs made by
# mmdebstrap with this machine's Node (binary, npm, headers for native modules) copied in, imported as
# the base, then `docker build --build-arg BASE_IMAGE=…`. Needs mmdebstrap and a running Docker daemon
# (DOCKER_HOST), and reaches Debian's mirror and the npm registry. The machine's own CA certificates
# (/usr/local/share/ca-certificates, e.g. a TLS-inspecting egress proxy's) go into the base, so npm and
# apt inside the build trust what the machine trusts; a base made this way is for this machine's CI only.
# Usage: deploy/test/build-image.sh [TAG [DOCKER-BUILD-OPTION...]], e.g. `… llm-router:ci --network host`
# for a daemon without a bridge (deploy/test/image-stage.sh). ROUTER_BUILD_CONTEXT builds another
# directory than the repository (the stage's "next build" copy).
set -eu
tag=${1:-llm-router:local}
[ $# -gt 0 ] && shift
base=${ROUTER_BASE_IMAGE:-llm-router-base:bookworm-node$(node -p 'process.versions.node')}
root=$(cd "$(dirname "$0")/../.." && pwd)
node_bin=$(command -v node)
node_prefix=$(dirname "$(dirname "$node_bin")")

if ! docker image inspect "$base" >/dev/null 2>&1; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # minbase: Essential and apt, which the Dockerfile uses; ca-certificates for npm's TLS.
  mmdebstrap --variant=minbase --include=ca-certificates,libstdc++6 --quiet \
    --customize-hook="mkdir -p \"\$1$node_prefix/lib\" \"\$1$node_prefix/include\" \"\$1$node_prefix/etc\"" \
    --customize-hook="copy-in $node_bin $node_prefix/bin" \
    --customize-hook="copy-in $node_prefix/lib/node_modules $node_prefix/lib" \
    --customize-hook="copy-in $node_prefix/include/node $node_prefix/include" \
    --customize-hook="ln -sf ../lib/node_modules/npm/bin/npm-cli.js \"\$1$node_prefix/bin/npm\"" \
    --customize-hook="ln -sf ../lib/node_modules/npm/bin/npx-cli.js \"\$1$node_prefix/bin/npx\"" \
    --customize-hook='if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/" && chroot "$1" update-ca-certificates >/dev/null; fi' \
    --customize-hook="printf 'nodedir=$node_prefix\ncafile=/etc/ssl/certs/ca-certificates.crt\nfund=false\naudit=false\nupdate-notifier=false\n' > \"\$1$node_prefix/etc/npmrc\"" \
    --customize-hook='rm -rf "$1/var/lib/apt/lists/"* "$1/var/cache/apt/"*' \
    bookworm "$work/rootfs.tar"
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["node"]' "$work/rootfs.tar" "$base"
fi
docker build --build-arg BASE_IMAGE="$base" -t "$tag" "$@" "${ROUTER_BUILD_CONTEXT:-$root}"
