#!/usr/bin/env bash
# CI's container stage (docs/deploy.md#what-is-tested), also run by hand: builds the router's image and
# the "next build" (the same sources plus one test-only additive migration), then runs
# deploy/test/exercise-image.mjs (one container against this machine's PostgreSQL and Redis, then a
# rolling upgrade behind nginx under load). Needs root where Debian's docker.io, mmdebstrap or nginx are
# missing (installs them with apt-get). Starts its own dockerd (own socket, data root and exec root under
# $ROUTER_IMAGE_STAGE_DIR, no bridge and no iptables rules: containers use the host's network) and stops
# it on exit; the data root is kept, so a later run reuses the base image and unchanged build layers.
# Where no container engine can start it prints why and exits 0 ("skipped"); any other failure exits 1.
# Usage: deploy/test/image-stage.sh (from anywhere; env as for exercise-image.mjs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stage_dir=${ROUTER_IMAGE_STAGE_DIR:-/tmp/llm-router-image-stage}
started=$(date +%s)
seconds_since() { echo $(( $(date +%s) - $1 )); }
skip() {
  echo "image stage: skipped: $*"
  exit 0
}

missing=()
[ -x /usr/sbin/dockerd ] && [ -x /usr/bin/docker ] || missing+=(docker.io)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || skip "no ${missing[*]}, and no apt-get as root to install them"
  echo "image stage: installing ${missing[*]}"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
    || skip "apt-get install ${missing[*]} failed"
fi
# Debian's client, matching Debian's daemon (another docker client on PATH may expect a newer API or buildx).
export PATH="/usr/bin:/usr/sbin:$PATH" DOCKER=/usr/bin/docker NGINX_BIN=/usr/sbin/nginx
export DOCKER_HOST="unix://$stage_dir/docker.sock"

mkdir -p "$stage_dir"
if [ -f "$stage_dir/dockerd.pid" ] && kill -0 "$(cat "$stage_dir/dockerd.pid")" 2>/dev/null; then
  echo "image stage: another run's dockerd ($(cat "$stage_dir/dockerd.pid")) uses $stage_dir; set ROUTER_IMAGE_STAGE_DIR" >&2
  exit 1
fi
dockerd --data-root "$stage_dir/data" --exec-root "$stage_dir/exec" --pidfile "$stage_dir/dockerd.pid" \
  -H "$DOCKER_HOST" --bridge=none --iptables=false --ip6tables=false >"$stage_dir/dockerd.log" 2>&1 &
dockerd_pid=$!
context=$(mktemp -d)
stop_engine() {
  rm -rf "$context"
  if kill -0 "$dockerd_pid" 2>/dev/null; then
    docker image prune -f >/dev/null 2>&1 || true # superseded layers of earlier builds (tagged ones stay)
    kill -TERM "$dockerd_pid"
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  # What dockerd leaves mounted: its default network namespace and its data root bound onto itself.
  umount "$stage_dir/exec/netns/default" "$stage_dir/data" 2>/dev/null || true
}
trap stop_engine EXIT
trap 'exit 1' INT TERM

for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && break
  kill -0 "$dockerd_pid" 2>/dev/null || break
  sleep 0.5
done
if ! docker info >/dev/null 2>&1; then
  tail -5 "$stage_dir/dockerd.log"
  skip "dockerd did not start (its log's last lines above)"
fi
echo "image stage: dockerd $(docker version -f '{{.Server.Version}}') with data root $stage_dir/data"

t=$(date +%s)
sh "$root/deploy/test/build-image.sh" llm-router:ci --network host --quiet
echo "image stage: image built in $(seconds_since "$t") s ($(docker image inspect -f '{{.Size}}' llm-router:ci | awk '{printf "%.0f", $1 / 1e6}') MB)"
# The dependency stages tagged too (all cached: seconds), so the prune at exit keeps their layers, the
# `npm ci` one above all (better-sqlite3 compiles from source here), for the next run's cache.
sh "$root/deploy/test/build-image.sh" llm-router:ci-dependencies --network host --quiet --target production-dependencies >/dev/null \
  || echo "image stage: could not tag the dependency stages; the next run builds them again"

# The next build: this tree (tracked and untracked files, as a clone has them) with one more schema
# version, an additive table the running release ignores, as a real release's expand step would be.
t=$(date +%s)
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$context"
current=$(docker run --rm --network none --entrypoint node llm-router:ci --input-type=module -e \
  "const { postgresMigrations } = await import('/app/dist/stores/migrations/postgres-migrations.js'); console.log(Math.max(...postgresMigrations.map((m) => m.version)))")
next=$((current + 1))
versions="$context/src/stores/migrations/versions"
cat >"$versions/v$next-ci-upgrade-probe.ts" <<EOF
import type { VersionedMigration } from './versioned-migration.js';

/** Only in deploy/test/image-stage.sh's "next build": an additive table that the previous release ignores. */
export const ciUpgradeProbe: VersionedMigration = {
  version: $next,
  name: 'ci upgrade probe (test build only)',
  sqlite: 'CREATE TABLE ci_upgrade_probe (id INTEGER PRIMARY KEY, note TEXT);',
  postgres: 'CREATE TABLE ci_upgrade_probe (id BIGSERIAL PRIMARY KEY, note TEXT);',
};
EOF
node -e '
  const fs = require("node:fs");
  const [path, next] = process.argv.slice(1);
  const text = fs.readFileSync(path, "utf8");
  const patched = text.replace(/(export const laterMigrations[^=]*=\s*\[)([\s\S]*?)(\s*\];)/, (_, open, list, close) =>
    `${open}${list}${list.trim() === "" ? "" : list.trimEnd().endsWith(",") ? "" : ","} ciUpgradeProbe${close}`);
  if (patched === text) throw new Error("laterMigrations not found in " + path);
  fs.writeFileSync(path, `import { ciUpgradeProbe } from "./v${next}-ci-upgrade-probe.js";\n${patched}`);
' "$versions/index.ts" "$next"
ROUTER_BUILD_CONTEXT="$context" sh "$root/deploy/test/build-image.sh" llm-router:ci-next --network host --quiet
echo "image stage: next build (schema version $current -> $next) built in $(seconds_since "$t") s"

status=0
node "$root/deploy/test/exercise-image.mjs" llm-router:ci llm-router:ci-next || status=$?
echo "image stage: $( [ $status = 0 ] && echo passed || echo FAILED ) in $(seconds_since "$started") s"
exit $status
