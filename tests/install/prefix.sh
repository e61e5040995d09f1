#!/bin/sh
# cmake --install into a prefix: the FHS layout; the prefix moved as a whole
# still works (the binary finds PREFIX/share/aiwolf from its own path).
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

[ $fails -eq 0 ] && echo "install_prefix: ok"
exit $((fails > 0))
