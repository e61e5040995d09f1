#!/bin/sh
# aiwolf lint: a clean agent; a syntax error with file:line; an error at
# load; a global assignment (also inside a method that never runs at load);
# an unknown global and a missing library field; a misspelt method; exit
# statuses 0/1/2.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
lint() { # expected status, file, expected text (grep -E) in stdout...
  want=$1; f=$2; shift 2
  "$bin" lint "$f" > "$tmp/out" 2> "$tmp/err"; rc=$?
  [ $rc -eq "$want" ] || fail "$f: exit $rc, not $want: $(cat "$tmp/out" "$tmp/err")"
  for text in "$@"; do
    grep -Eq -- "$text" "$tmp/out" || fail "$f: no '$text' in: $(cat "$tmp/out")"
  done
}

"$bin" lint --help | grep -q luacheck || fail "--help does not mention luacheck"
for a in agents/sample.lua agents/tutorial.lua agents/random.lua; do lint 0 "$a" ": ok$"; done

printf 'return {\n  talk = function(self) return "Over" end\n  vote = 3\n}\n' > "$tmp/syntax.lua"
lint 1 "$tmp/syntax.lua" "^$tmp/syntax.lua:3: .*expected"

printf 'local t = {}\nlocal x = nil\nx.y = 1\nreturn t\n' > "$tmp/load.lua"
lint 1 "$tmp/load.lua" "^$tmp/load.lua:3: attempt to index"

printf 'return 42\n' > "$tmp/number.lua"
lint 1 "$tmp/number.lua" "must return a table"

cat > "$tmp/globals.lua" <<'LUA'
local agent = {}
count = 0
function agent:talk()
  total = (total or 0) + 1
  for _, v in ipars({}) do print(v) end
  io.write("x")
  os.exit(1)
  return "Over"
end
return agent
LUA
lint 1 "$tmp/globals.lua" "globals.lua:2: assignment to the global 'count'" \
  "globals.lua:4: assignment to the global 'total'" "globals.lua:5: 'ipars' is not a global" \
  "globals.lua:6: 'io' is not a global" "globals.lua:7: 'os.exit' does not exist"
grep -q "'total' is not a global" "$tmp/out" && fail "a global the file sets is also reported as unknown"

cat > "$tmp/methods.lua" <<'LUA'
local A = require "aiwolf.agent"
local agent = A.new{name = "m"}
function agent:tlak() return "Over" end
function agent:voteTarget() return nil end
function agent:day_start() end
function agent:dayFinish() end
agent.guard = 3
return agent
LUA
lint 1 "$tmp/methods.lua" "methods.lua:3: method 'tlak' .*did you mean 'talk'" \
  "methods.lua:5: method 'day_start' .*'dayStart'" "methods.lua:6: method 'dayFinish' is never called" \
  "'guard' is a number, not a function"
grep -q voteTarget "$tmp/out" && fail "a helper method was reported"

printf 'local t = {}\nfunction t:talk() return "Over" end\nreturn t\n' > "$tmp/plain.lua"
lint 0 "$tmp/plain.lua" "note: not defined .*vote" ": ok$"

# status 2: unreadable; usage
"$bin" lint "$tmp/none.lua" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "none.lua" "$tmp/err" || fail "missing file: exit $rc"
"$bin" lint > /dev/null 2>&1; [ $? -eq 2 ] || fail "no files: not 2"
"$bin" lint --frob x > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option: not 2"
# several files: the worst status; -q prints findings only
"$bin" lint -q agents/random.lua "$tmp/number.lua" > "$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] && ! grep -q ": ok" "$tmp/out" && ! grep -q "note:" "$tmp/out" || fail "-q with two files: exit $rc"
[ $fails -eq 0 ] && echo "lint: all checks passed"
exit $fails
