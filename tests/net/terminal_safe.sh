#!/bin/sh
# Names and messages from the network or an agent reach the operator's
# terminal escaped (util.h's aw_buf_add_term): a hostile name or error text
# — an OSC title (ESC ] 0 ; ... BEL), a clear-screen (ESC [ 2 J), a
# right-to-left override (U+202E) — comes out as \e]0;PWNED\x07...,
# \u{202e}, never as the bytes. One command per run:
#   terminal_safe.sh AIWOLF serve|connect|play|contest|paths
set -eu
bin=$1
cmd=$2
tmp=$(mktemp -d)
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $pids; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# No raw ESC, BEL or U+202E in a file; the escaped forms in it.
raw_free() {
  if python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(any(b in d for b in (b"\x1b", b"\x07", "\u202e".encode())))' "$1"
  then :; else echo "$cmd: raw control bytes reached the terminal ($1):"; cat -v "$1"; exit 1; fi
}
has() {
  grep -aqF -- "$2" "$1" || { echo "$cmd: '$2' not in $1:"; cat -v "$1"; exit 1; }
}

# A Lua agent whose talk fails with a hostile message.
cat > "$tmp/evil.lua" <<'EOF'
local agent = {}
function agent:getName() return "evil" end
function agent:initialize(info, setting) self.me = info.agent end
function agent:talk() error("boom \226\128\174PWNED") end
return agent
EOF

# Waits (up to 60 s: a bound, not a timing assumption) for a line in a file.
wait_for() {
  i=0
  until grep -aq -- "$2" "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 600 ] || { echo "$cmd: no '$2' in $1:"; cat -v "$1"; exit 1; }
    sleep 0.1
  done
}
port_of() { sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\) .*/\1/p' "$1" | head -1; }

case "$cmd" in
serve)
  # A remote agent names itself with escape sequences: serve's "joined".
  "$bin" serve -p 0 -n 5 --games 1 --seed 1 2> "$tmp/err" &
  pids="$!"
  wait_for "$tmp/err" "listening on"
  python3 - "$(port_of "$tmp/err")" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = s.makefile("rb")
line = f.readline()
assert b"NAME" in line, line
s.sendall(b"\x1b]0;PWNED\x07evil\xe2\x80\xae\x1b[2J\n")
s.close()  # serve reads the name before the end of the stream
PY
  wait_for "$tmp/err" "joined"
  kill $pids
  wait $pids || true
  pids=""
  raw_free "$tmp/err"
  has "$tmp/err" '\e]0;PWNED\x07evil\u{202e}\e[2J joined'
  ;;
connect)
  # (1) The agent's own error text, as connect reports its faults.
  "$bin" serve -p 0 -n 5 --games 1 --seed 3 $(for a in 2 3 4 5; do printf -- '--agent %s=agents/random.lua ' $a; done) \
    2> "$tmp/serr" > /dev/null &
  spid=$!
  pids="$spid"
  wait_for "$tmp/serr" "listening on"
  "$bin" connect -p "$(port_of "$tmp/serr")" "$tmp/evil.lua" 2> "$tmp/err" > /dev/null || true
  wait $spid || true
  pids=""
  raw_free "$tmp/err"
  has "$tmp/err" 'TALK: error:'
  has "$tmp/err" 'boom \u{202e}PWNED'
  # (2) A server that sends escape sequences instead of packets.
  python3 - "$tmp/port" <<'PY' &
import socket, sys
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
open(sys.argv[1], "w").write(str(srv.getsockname()[1]))
c, _ = srv.accept()
c.sendall(b"\x1b]0;PWNED\x07\x1b[2J\xe2\x80\xae{\"request\": \"\x1b[2J\"}\n")
c.recv(100)
c.close()
PY
  pids="$!"
  wait_for "$tmp/port" "[0-9]"
  "$bin" connect -p "$(cat "$tmp/port")" "$tmp/evil.lua" 2> "$tmp/err2" > /dev/null && exit 1
  wait $pids || true
  pids=""
  raw_free "$tmp/err2"
  has "$tmp/err2" "aiwolf connect:"
  ;;
play)
  # The first fault line (stderr), the summary (stdout: the agent file's
  # name holds a clear-screen) and the record (stdout).
  odd="$tmp/ev$(printf '\033')[2Jil.lua"
  cp "$tmp/evil.lua" "$odd"
  "$bin" play --games 2 --seed 1 "$odd" agents/random.lua > "$tmp/out" 2> "$tmp/err"
  raw_free "$tmp/err"
  raw_free "$tmp/out"
  has "$tmp/err" 'first fault of'
  has "$tmp/err" 'boom \u{202e}PWNED'
  has "$tmp/out" 'ev\e[2Jil.lua'
  "$bin" play --seed 1 "$tmp/evil.lua" agents/random.lua > "$tmp/out" 2> "$tmp/err"
  raw_free "$tmp/out"
  has "$tmp/out" 'boom \u{202e}PWNED'
  ;;
contest)
  # Two entries whose folder names hold escapes: one that plays (the only
  # one ranked, so the progress line's leader) and one that does not compile
  # (its warning); and the report on stdout.
  evil=$(printf 'ev\033]0;PWNED\007il\342\200\256')
  mkdir "$tmp/$evil"
  cp agents/random.lua "$tmp/$evil/main.lua"
  bad=$(printf 'br\033[2Jok\342\200\256')
  mkdir "$tmp/$bad"
  printf 'return {\n' > "$tmp/$bad/main.lua"
  "$bin" contest --games-per-entry 4 --seed 2 --jobs 1 --out "$tmp/c" "$tmp/$evil" "$tmp/$bad" \
    > "$tmp/out" 2> "$tmp/err" || { echo "the contest failed:"; cat -v "$tmp/err"; exit 1; }
  raw_free "$tmp/err"
  raw_free "$tmp/out"
  has "$tmp/err" 'br\e[2Jok\u{202e}'
  has "$tmp/err" 'leader ev_]0;PWNED_il\u{202e}' # the contest names it with C0 bytes as _
  has "$tmp/out" '| ev_]0;PWNED_il\u{202e} |'
  ;;
paths)
  # Paths and names given on the command line that hold escapes come back
  # escaped in every message that names them (check, replay, contest, new,
  # play, the command itself): a clear-screen, an OSC title, U+202E.
  esc=$(printf 'x\033]0;PWNED\007y\033[2Jz\342\200\256')
  shown='x\e]0;PWNED\x07y\e[2Jz\u{202e}'
  "$bin" play --seed 4 --log "$tmp/game.log" agents/random.lua > /dev/null 2>&1
  cp "$tmp/game.log" "$tmp/$esc.log"
  head -3 "$tmp/game.log" > "$tmp/$esc.cut.log"
  run() { # the output of a command that must fail or pass as asked, both streams
    want=$1
    shift
    set +e
    "$@" > "$tmp/out" 2>&1
    rc=$?
    set -e
    if [ "$want" = ok ] && [ $rc -ne 0 ]; then echo "paths: $* exited $rc:"; cat -v "$tmp/out"; exit 1; fi
    if [ "$want" = fail ] && [ $rc -eq 0 ]; then echo "paths: $* passed:"; cat -v "$tmp/out"; exit 1; fi
    raw_free "$tmp/out"
  }
  run fail "$bin" check "$tmp/no$esc.log"
  has "$tmp/out" "no$shown.log"
  run ok "$bin" check "$tmp/$esc.log"
  has "$tmp/out" "$shown.log: legal"
  run fail "$bin" check "$tmp/$esc.cut.log"
  has "$tmp/out" "$shown.cut.log:"
  run ok "$bin" replay "$tmp/$esc.log"
  has "$tmp/out" "$shown.log: reproduced"
  run fail "$bin" replay "$tmp/no$esc.log"
  has "$tmp/out" "no$shown.log"
  mkdir "$tmp/$esc"
  cp agents/random.lua "$tmp/$esc/main.lua"
  run fail "$bin" contest --games-per-entry 1 --out "$tmp/c1" "$tmp/$esc" "$tmp/$esc"
  has "$tmp/out" "$shown is given twice"
  run fail "$bin" contest --games-per-entry 1 --out "$tmp/c2" "$tmp/no$esc" agents/random.lua
  has "$tmp/out" "no$shown"
  : > "$tmp/file"
  run fail "$bin" contest --games-per-entry 1 --out "$tmp/file/$esc" "$tmp/$esc" agents/random.lua
  has "$tmp/out" "file/$shown"
  run fail "$bin" new "$esc"
  has "$tmp/out" "'$shown'"
  run ok "$bin" new --dir "$tmp/$esc" agent1
  has "$tmp/out" "created $tmp/$shown/agent1/"
  # its hints quote the path as bash's $'...': shown escaped, and a command that works
  grep -a ' lint ' "$tmp/out" | sed 's/#.*//' > "$tmp/hint.sh"
  has "$tmp/hint.sh" "\$'"
  bash "$tmp/hint.sh" > "$tmp/lint.out" 2>&1 || { echo "paths: the lint hint did not run:"; cat -v "$tmp/hint.sh" "$tmp/lint.out"; exit 1; }
  run fail "$bin" play "$tmp/no$esc.lua" agents/random.lua
  has "$tmp/out" "no$shown.lua"
  run fail "$bin" "$esc"
  has "$tmp/out" "'$shown'"
  ;;
*)
  echo "usage: terminal_safe.sh AIWOLF serve|connect|play|contest|paths"
  exit 2
  ;;
esac
echo ok
