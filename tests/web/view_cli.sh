#!/bin/sh
# aiwolf view's command line: --help, and clear messages with status 2 for
# bad usage, a missing file, an empty folder, a bad address, a port in use.
#   view_cli.sh AIWOLF
set -u
aiwolf=$1
fails=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/view_cli.XXXXXX")
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# expect STATUS TEXT ARGS...: aiwolf view ARGS exits with STATUS and says TEXT
expect() {
  want=$1 text=$2; shift 2
  "$aiwolf" view "$@" > "$tmp/out" 2>&1 </dev/null
  st=$?
  if [ "$st" -ne "$want" ] || ! grep -q -- "$text" "$tmp/out"; then
    echo "view_cli: FAIL aiwolf view $*: status $st (want $want), output:"; cat "$tmp/out"
    fails=$((fails + 1))
  fi
}
log=tests/fixtures/official/direct/5p/game000.log
expect 0 "usage: aiwolf view" --help
expect 2 "give a game log" 
expect 2 "no such file or folder" "$tmp/missing.log"
mkdir "$tmp/empty"
expect 2 "no game files" "$tmp/empty"
expect 2 "unknown option '--bogus'" --bogus "$log"
expect 2 "give a number from 0 to 65535" --port 70000 "$log"
expect 2 "aiwolf view: 'example.org' is not an IPv4 address: the web server listens on IPv4 only" --host example.org "$log"
expect 2 "cannot listen on 203.0.113.9" --host 203.0.113.9 "$log"
"$aiwolf" view "$log" > "$tmp/first" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "http://" "$tmp/first" && break; sleep 0.1; done
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$tmp/first")
expect 2 "cannot listen on 127.0.0.1:$port" --port "$port" "$log"
kill -INT "$pid"; wait "$pid"; st=$?; pid=""
[ "$st" -eq 0 ] || { echo "view_cli: FAIL SIGINT gave status $st"; fails=$((fails + 1)); }
"$aiwolf" --help | grep -q "view" || { echo "view_cli: FAIL aiwolf --help does not list view"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "view_cli: ok" || { echo "view_cli: $fails failure(s)"; exit 1; }
