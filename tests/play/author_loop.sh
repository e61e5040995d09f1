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

# 4. A runtime error carries file:line and a short traceback of the agent's
# own frames, on the same line; an error raised in a tail-called function
# gets the position Lua still knows, marked "(tail call)".
# 5. The fault names the agent's method: "update(): ...", "talk(): ...".
mkdir "$tmp/tb"
cat > "$tmp/tb/deep.lua" <<'LUA'
local a = {}
local function check(c, m) if not c then error(m, 2) end end
local function deep3() local t = nil; return t.x + 1 end
local function deep2() local v = deep3(); return v end
local function deep1() local v = deep2(); return v end
function a:talk() return check(false, "bad talk") end
function a:vote() return assert(nil, "no vote") end
function a:update(info) if info.day == 1 then local v = deep1(); return v end end
function a:finish() while true do end end
return a
LUA
"$bin" play --players 5 --seed 3 --budget 50 --events "$tmp/tb.jsonl" "$tmp/tb/deep.lua" agents/random.lua > "$tmp/tb.txt" ||
  fail "play with a failing agent failed"
f="$tmp/tb/deep.lua"
grep -qF "! Agent[01] DAILY_INITIALIZE error: update(): $f:3: attempt to index a nil value (local 't') [traceback: $f:3, $f:4, $f:5, $f:8]" "$tmp/tb.txt" ||
  fail "no traceback, or no method, for an error in update(): $(grep DAILY_INITIALIZE "$tmp/tb.txt" | head -1)"
grep -qF "\"message\":\"update(): $f:3: attempt to index a nil value (local 't') [traceback: $f:3, $f:4, $f:5, $f:8]\"" "$tmp/tb.jsonl" ||
  fail "the events do not carry the traceback"
grep -qF "! Agent[01] TALK error: talk(): $f:2: bad talk [traceback: $f:2 (tail call)]" "$tmp/tb.txt" ||
  fail "an error in a tail-called function lost its position: $(grep 'TALK error' "$tmp/tb.txt" | head -1)"
grep -qF "! Agent[01] VOTE error: vote(): $f:7: no vote" "$tmp/tb.txt" ||
  fail "assert in vote() has no position or method: $(grep 'VOTE error' "$tmp/tb.txt" | head -1)"
grep -q '! Agent\[01\] FINISH timeout: finish(): time budget of 50 ms exceeded' "$tmp/tb.txt" ||
  fail "a time-out does not name the method"
if grep '^  !' "$tmp/tb.txt" | awk 'length > 600 { exit 1 }'; then :; else fail "a fault line is not bounded"; fi

# 6. Legal answers are quiet: talk() returning nil (Skip), no whisper() or
# no methods at all give no '!' line, no fault and no "no answer"; real
# faults stay loud.
printf 'return {}\n' > "$tmp/empty.lua"
printf 'return { talk = function() return nil end }\n' > "$tmp/niltalk.lua"
"$bin" play --players 15 --seed 11 --events "$tmp/q.jsonl" "$tmp/empty.lua" "$tmp/niltalk.lua" > "$tmp/q.txt" ||
  fail "play with quiet agents failed"
if grep -q '^  !' "$tmp/q.txt"; then fail "legal answers shown as faults: $(grep '^  !' "$tmp/q.txt" | head -3)"; fi
if grep -q '"fault"' "$tmp/q.jsonl"; then fail "a legal answer counted as a fault"; fi
if grep -q '"reason":"no answer"' "$tmp/q.jsonl"; then fail "a legal answer logged as no answer"; fi
grep -q '^  whisper Agent\[[0-9]*\] (WEREWOLF): Skip$' "$tmp/q.txt" || fail "no whisper in the quiet game"
grep -q '^  - Agent\[[0-9]*\] VOTE: no target; the rules use Agent\[[0-9]*\]$' "$tmp/q.txt" ||
  fail "a missing vote is not noted"
printf 'return { talk = function() error("talk is broken") end }\n' > "$tmp/raises.lua"
"$bin" play --players 5 --seed 11 "$tmp/raises.lua" agents/random.lua > "$tmp/loud.txt" || fail "play with a raising agent failed"
grep -q '^  ! Agent\[01\] TALK error: talk(): .*talk is broken' "$tmp/loud.txt" || fail "a fault in talk() is not loud"
grep -q '^  ! Agent\[01\] TALK: no answer; logged as Skip$' "$tmp/loud.txt" || fail "the Skip after a fault is not loud"

# 7. --quiet on one game still prints its result line (on standard error
# when standard output carries the events).
"$bin" play --quiet --seed 5 agents/random.lua > "$tmp/quiet.txt" || fail "play --quiet failed"
[ "$(wc -l < "$tmp/quiet.txt")" -eq 1 ] || fail "play --quiet printed $(wc -l < "$tmp/quiet.txt") lines"
grep -Eq '^Result: (VILLAGER|WEREWOLF) wins after day [0-9]+ \([0-9]+ humans and [0-9]+ werewolves alive; seed 5\)$' "$tmp/quiet.txt" ||
  fail "play --quiet gave no result line: $(cat "$tmp/quiet.txt")"
"$bin" play --seed 5 agents/random.lua | grep '^Result: ' | cut -d'(' -f1 > "$tmp/loud_result.txt"
[ "$(cut -d'(' -f1 "$tmp/quiet.txt")" = "$(cat "$tmp/loud_result.txt")" ] || fail "the quiet result differs from the record's"
"$bin" play --quiet --seed 5 --events - agents/random.lua > "$tmp/ev_only.txt" 2> "$tmp/ev_err.txt" || fail "play --quiet --events - failed"
if grep -qv '^{' "$tmp/ev_only.txt"; then fail "the result line went into the events on standard output"; fi
grep -q '^Result: ' "$tmp/ev_err.txt" || fail "no result line on standard error with --events -"

echo "author loop: ok"
