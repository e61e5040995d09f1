#!/bin/sh
# aiwolf new: creates the folder and its files; the agents it writes (plain
# and --role-aware) lint clean and play games without a fault; refuses an
# existing folder and names that are not plain folder names.
set -u
bin=$1
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac # the spec runs in the new folder
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$bin" new --help > "$tmp/help" 2>&1 && grep -q -- "--role-aware" "$tmp/help" || fail "--help"

for kind in plain roles; do
  name=ag_$kind
  if [ $kind = roles ]; then flag=--role-aware; else flag=; fi
  "$bin" new $flag --dir "$tmp" "$name" > "$tmp/out" 2> "$tmp/err" || { fail "$kind: new: $(cat "$tmp/err")"; continue; }
  d=$tmp/$name
  for f in main.lua spec/${name}_spec.lua .luarc.json .luacheckrc .aiwolf-meta/aiwolf/agent.lua \
           .aiwolf-meta/aiwolf/protocol.lua .aiwolf-meta/aiwolf/host.lua; do
    [ -s "$d/$f" ] || fail "$kind: $f missing"
  done
  grep -q "\"$name\"" "$d/main.lua" || fail "$kind: main.lua does not name the agent"
  # the editor files: valid JSON pointing at the annotations; Lua that loads
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["workspace.library"]==[".aiwolf-meta"], c' \
    "$d/.luarc.json" || fail "$kind: .luarc.json"
  for f in "$d"/.aiwolf-meta/aiwolf/*.lua "$d/main.lua" "$d/spec/${name}_spec.lua"; do
    luac5.4 -p "$f" || fail "$kind: $f does not compile"
  done
  for f in "$d"/.aiwolf-meta/aiwolf/*.lua; do
    lua5.4 -e "dofile('$f')" || fail "$kind: $f does not load"
  done
  grep -q -- "---@meta" "$d/.aiwolf-meta/aiwolf/host.lua" || fail "$kind: host.lua is no ---@meta file"
  # .luacheckrc: Lua that sets the standard to the sandbox's globals
  lua5.4 -e "rc = '$d/.luacheckrc'" -e 'stds = {}; files = {}; dofile(rc)
    local g = stds.aiwolf_sandbox.read_globals
    assert(std == "aiwolf_sandbox", "std")
    assert(g.io == nil and g.debug == nil and g.dofile == nil, "io, debug, dofile are not in the sandbox")
    assert(g.os.fields.exit == nil and g.os.fields.clock, "os fields")
    assert(g.string.fields.dump == nil and g.string.fields.format, "string fields")
    assert(g.require and g.print and g.math.fields.random, "basics")' ||
    fail "$kind: .luacheckrc"
  "$bin" lint "$d/main.lua" > "$tmp/lint" 2>&1 || fail "$kind: lint: $(cat "$tmp/lint")"
  # a few games, every role seen at 15 players, no fault, no invalid talk
  "$bin" play --games 6 --players 15 --seed 11 --quiet --events "$tmp/ev_$kind" "$d/main.lua" agents/sample.lua \
    > "$tmp/play" 2>&1 || fail "$kind: play: $(cat "$tmp/play")"
  [ "$(grep -c '"event":"result"' "$tmp/ev_$kind")" -eq 6 ] || fail "$kind: not 6 results"
  ! grep -q '"fault"' "$tmp/ev_$kind" || fail "$kind: faults: $(grep '"fault"' "$tmp/ev_$kind" | head -3)"
  ! grep -q '"talkReplaced"' "$tmp/ev_$kind" || fail "$kind: invalid talk: $(grep talkReplaced "$tmp/ev_$kind" | head -3)"
  for role in SEER MEDIUM BODYGUARD WEREWOLF POSSESSED; do
    "$bin" play --players 15 --seed 5 --deal 1=$role --quiet --events "$tmp/ev1" "$d/main.lua" agents/random.lua \
      > /dev/null 2>&1 || fail "$kind: $role game"
    ! grep -q '"fault"' "$tmp/ev1" || fail "$kind: $role: fault"
  done
  # the hints name this binary (not on the PATH here) and what busted needs
  grep -q "^  $bin play $d/main.lua $d/main.lua " "$tmp/out" || fail "$kind: play hint: $(cat "$tmp/out")"
  grep -q "^  cd $d && AIWOLF_BIN=$bin busted " "$tmp/out" || fail "$kind: busted hint: $(cat "$tmp/out")"
  # the spec, when busted is there: it says which aiwolf it uses
  if command -v busted > /dev/null; then
    (cd "$d" && AIWOLF_BIN=$bin busted > "$tmp/busted" 2>&1) || fail "$kind: busted: $(tail -20 "$tmp/busted")"
    grep -q "aiwolf $bin (from AIWOLF_BIN)" "$tmp/busted" || fail "$kind: the spec does not say which aiwolf"
  fi
done

# refusals: an existing folder (untouched), bad names, usage
expect() { # status, text, command...
  want=$1; text=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
  [ $rc -eq "$want" ] && grep -q -- "$text" "$tmp/err" || fail "$*: exit $rc, stderr: $(cat "$tmp/err")"
}
echo keep > "$tmp/ag_plain/main.lua"
expect 1 "already exists" "$bin" new --dir "$tmp" ag_plain
[ "$(cat "$tmp/ag_plain/main.lua")" = keep ] || fail "an existing folder was changed"
touch "$tmp/afile"
expect 1 "already exists" "$bin" new --dir "$tmp" afile
expect 2 "not a plain folder name" "$bin" new --dir "$tmp" a/b
expect 2 "not a plain folder name" "$bin" new --dir "$tmp" ..
expect 2 "not a plain folder name" "$bin" new --dir "$tmp" "my agent"
expect 2 "no NAME" "$bin" new
expect 2 "no such folder" "$bin" new --dir "$tmp/nope" x
expect 2 "unknown option" "$bin" new --frob x
expect 2 "one NAME" "$bin" new a b
[ ! -e "$tmp/nope" ] && [ ! -e "$tmp/my agent" ] || fail "a refused name created something"
[ $fails -eq 0 ] && echo "new: all checks passed"
exit $fails
