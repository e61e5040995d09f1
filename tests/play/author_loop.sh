#!/bin/sh
# The agent author's loop: what an author writes first should work, and what
# goes wrong should say where. Each block below checks one finding.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "author loop: $*"; exit 1; }

# 1. talk()/whisper() may return a sentence of aiwolf.protocol (a table with
# __tostring): it is said as its text. A __tostring that gives no string is
# a reply fault that says so.
cat > "$tmp/sentences.lua" <<'LUA'
local P = require "aiwolf.protocol"
local a = {}
function a:talk() return P.vote(1) end
function a:whisper() return P.attack(2) end
return a
LUA
cat > "$tmp/badstring.lua" <<'LUA'
return { talk = function() return setmetatable({}, {__tostring = function() return 42 end}) end }
LUA
"$bin" play --players 15 --seed 7 --events "$tmp/s.jsonl" --deal 1=WEREWOLF,2=WEREWOLF,3=SEER \
  "$tmp/sentences.lua" > "$tmp/s.txt" || fail "play with sentences failed"
grep -q '^  talk    Agent\[04\] ([A-Z]*): VOTE Agent\[01\]$' "$tmp/s.txt" || fail "P.vote(1) from talk() was not said"
grep -q '^  whisper Agent\[01\] (WEREWOLF): ATTACK Agent\[02\]$' "$tmp/s.txt" || fail "P.attack(2) from whisper() was not said"
if grep -q '"fault"' "$tmp/s.jsonl"; then fail "a sentence was taken for a fault"; fi
"$bin" play --players 5 --seed 7 --events "$tmp/b.jsonl" "$tmp/badstring.lua" agents/random.lua > "$tmp/b.txt" ||
  fail "play with a bad __tostring failed"
grep -q '"fault":"reply","message":"talk() returned a table whose __tostring gave a number, not a string"' "$tmp/b.jsonl" ||
  fail "a __tostring giving a number was not a reply fault"

# 3. P.parse checks as the game does: strict by default (like the default
# preset's games and `aiwolf protocol`), lenient on request, and
# setting.validation names the game's own mode.
cat > "$tmp/parses.lua" <<'LUA'
local P = require "aiwolf.protocol"
return { initialize = function(self, info, setting)
  print(string.format("default=%s lenient=%s game=%s mode=%s", tostring(P.parse("vote Agent1") ~= nil),
    tostring(P.parse("vote Agent1", "lenient") ~= nil), tostring(P.parse("vote Agent1", setting.validation) ~= nil),
    setting.validation))
end }
LUA
"$bin" play --players 5 --seed 1 --agent-output "$tmp/parses.lua" agents/random.lua 2> "$tmp/p.err" > /dev/null ||
  fail "play for P.parse failed"
grep -q 'default=false lenient=true game=false mode=strict' "$tmp/p.err" || fail "P.parse is not strict by default: $(cat "$tmp/p.err")"
"$bin" play --players 5 --seed 1 --preset seed2015 --agent-output "$tmp/parses.lua" agents/random.lua 2> "$tmp/p.err" > /dev/null ||
  fail "play for P.parse (seed2015) failed"
grep -q 'default=false lenient=true game=true mode=lenient' "$tmp/p.err" || fail "setting.validation is not the game's mode: $(cat "$tmp/p.err")"
printf 'vote Agent1\n' | "$bin" protocol | grep -q '^invalid' || fail "aiwolf protocol accepts lenient text by default"
printf 'vote Agent1\n' | "$bin" protocol --lenient | grep -q '^valid' || fail "aiwolf protocol --lenient refuses lenient text"

echo "author loop: ok"
