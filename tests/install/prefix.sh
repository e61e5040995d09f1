#!/bin/sh
# cmake --install into a prefix: the FHS layout; the prefix moved as a whole
# still works (the binary finds PREFIX/share/aiwolf from its own path); with
# only the installed bin/ on the PATH, `aiwolf new`'s hints say plain aiwolf,
# its commands work, and the new folder's busted spec finds aiwolf on the
# PATH and says so.
set -u
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cmake --install "$build" --prefix "$tmp/pfx" > "$tmp/log" 2>&1 || { echo "FAIL: cmake --install: $(tail "$tmp/log")"; exit 1; }
for f in bin/aiwolf share/aiwolf/agents/sample.lua share/aiwolf/agents/random.lua \
         share/aiwolf/lua/aiwolf/agent.lua share/aiwolf/lua/aiwolf/protocol.lua \
         share/aiwolf/meta/aiwolf/agent.lua share/aiwolf/templates/agent/main.lua \
         share/man/man1/aiwolf.1 share/man/man1/aiwolf-play.1 share/man/man1/aiwolf-contest.1 \
         share/doc/aiwolf-lua/README.md share/doc/aiwolf-lua/docs/install.md; do
  [ -s "$tmp/pfx/$f" ] || fail "$f not installed"
done
[ -x "$tmp/pfx/bin/aiwolf" ] || fail "bin/aiwolf is not executable"
# a man page per command of aiwolf --help, each made from that command's --help
for c in $("$tmp/pfx/bin/aiwolf" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do
  [ -s "$tmp/pfx/share/man/man1/aiwolf-$c.1" ] || fail "no man page for $c"
done
grep -q -- "--games-per-entry" "$tmp/pfx/share/man/man1/aiwolf-contest.1" || fail "aiwolf-contest.1 lacks contest's options"
if command -v man > /dev/null; then
  MANWIDTH=80 man -l "$tmp/pfx/share/man/man1/aiwolf-play.1" 2> "$tmp/manerr" | grep -q "usage: aiwolf play" ||
    fail "man -l aiwolf-play.1: $(cat "$tmp/manerr")"
fi

mv "$tmp/pfx" "$tmp/moved prefix"
p=$tmp/moved\ prefix
"$p/bin/aiwolf" --version > "$tmp/v" 2>&1 || fail "--version: $(cat "$tmp/v")"
grep -qx "data: $p/share/aiwolf" "$tmp/v" || fail "moved prefix: --version says $(cat "$tmp/v")"

mkdir "$tmp/home"
cd "$tmp/home" || exit 1
PATH="$p/bin:/usr/bin:/bin" aiwolf new mywolf > "$tmp/new" 2>&1 || fail "new: $(cat "$tmp/new")"
grep -q "^  aiwolf play mywolf/main.lua mywolf/main.lua" "$tmp/new" || fail "the hint is not plain aiwolf: $(cat "$tmp/new")"
grep -q "^  cd mywolf && busted" "$tmp/new" || fail "the busted hint: $(cat "$tmp/new")"
grep -q "'$p/share/aiwolf/agents/sample.lua'" "$tmp/new" || fail "the sample agent's path: $(cat "$tmp/new")"
# each hint runs as printed (the --watch one without --watch, for 2 games)
hint=$(sed -n 's/^  \(aiwolf play mywolf[^#]*\)#.*/\1/p' "$tmp/new" | head -1)
PATH="$p/bin:/usr/bin:/bin" sh -c "$hint" > "$tmp/out" 2>&1 || fail "$hint: $(tail -5 "$tmp/out")"
grep -q " won" "$tmp/out" || fail "$hint printed no game: $(tail -5 "$tmp/out")"
hint=$(sed -n 's/^  \(aiwolf play --games 200 --watch[^#]*\)#.*/\1/p' "$tmp/new" | sed 's/--games 200 --watch/--games 2 --quiet/')
PATH="$p/bin:/usr/bin:/bin" sh -c "$hint" > "$tmp/out" 2>&1 || fail "$hint: $(tail -5 "$tmp/out")"
if command -v busted > /dev/null; then
  (cd mywolf && env -u AIWOLF_BIN PATH="$p/bin:/usr/bin:/bin" busted > "$tmp/busted" 2>&1) ||
    fail "busted with aiwolf on the PATH: $(tail -20 "$tmp/busted")"
  grep -q "aiwolf $p/bin/aiwolf (from the PATH)" "$tmp/busted" || fail "the spec does not say which aiwolf: $(head -3 "$tmp/busted")"
  # neither on the PATH nor AIWOLF_BIN: a failure that says what to do
  (cd mywolf && env -u AIWOLF_BIN PATH="/usr/bin:/bin" busted > "$tmp/busted" 2>&1) && fail "busted without aiwolf passed"
  grep -q "AIWOLF_BIN is not set" "$tmp/busted" || fail "no aiwolf: $(tail -5 "$tmp/busted")"
fi

[ $fails -eq 0 ] && echo "install_prefix: ok"
exit $((fails > 0))
