#!/bin/sh
# aiwolf view in headless Chromium (viewer_browser.mjs, through the DevTools
# protocol from Node, no packages: cdp.mjs): one official game, a small contest's
# folder, and bad, chaos, gzipped and events files; each server stops on
# SIGINT with status 0. With VIEWER_SCREENSHOTS=DIR the screenshots go there
# (docs/images/viewer-*.png).
#   viewer_browser.sh AIWOLF
set -eu
aiwolf=$1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "viewer_browser: $CHROMIUM not found (tests/run installs chromium)"; exit 1; }
command -v node >/dev/null || { echo "viewer_browser: node not found (tests/run installs nodejs)"; exit 1; }
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/viewer_browser.XXXXXX")
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

log=tests/fixtures/official/direct/5p/game000.log
"$aiwolf" contest --quiet --games-per-entry 40 --seed 3 --jobs 2 --out "$tmp/contest" \
  agents/random.lua agents/sample.lua >/dev/null 2>&1
head -c 3000 /dev/urandom | od -An -tx1 > "$tmp/garbage.log"
cp tests/fixtures/official/chaos/c000.log "$tmp/chaos.log"
gzip -c "$log" > "$tmp/game.log.gz"
"$aiwolf" play agents/sample.lua agents/random.lua --games 2 --seed 5 --events "$tmp/events.jsonl" --quiet >/dev/null

# serve NAME ARGS...: starts aiwolf view; its URL in $url
serve() {
  name=$1; shift
  : > "$tmp/$name.out" # before the background child opens it, for sed below
  "$aiwolf" view "$@" > "$tmp/$name.out" 2>&1 &
  pids="$pids $!"
  eval "pid_$name=$!"
  for _ in $(seq 100); do
    url=$(sed -n 's/.* at \(http[^ ]*\) .*/\1/p' "$tmp/$name.out" || true)
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  echo "viewer_browser: aiwolf view $* did not start:"; cat "$tmp/$name.out"; exit 1
}
serve one "$log"; one=$url
serve dir "$tmp/contest"; dir=$url
serve mixed "$tmp/garbage.log" "$tmp/chaos.log" "$tmp/game.log.gz" "$tmp/events.jsonl"; mixed=$url

rc=0
node "$here/viewer_browser.mjs" "$one" "$log" "$dir" "$tmp/contest" "$mixed" \
  "${VIEWER_SCREENSHOTS:--}" || rc=1
for n in one dir mixed; do
  eval "p=\$pid_$n"
  kill -INT "$p"
  st=0; wait "$p" || st=$?
  if [ "$st" -ne 0 ] || ! grep -q "stopped" "$tmp/$n.out"; then
    echo "viewer_browser: aiwolf view ($n) did not stop cleanly on SIGINT (status $st)"; cat "$tmp/$n.out"; rc=1
  fi
done
pids=""
exit $rc
