#!/bin/sh
# The red team's attack agents (tests/sandbox/attacks/*.lua, each file says
# what it tries): every game still finishes in time with a legal log, the
# events file stays valid JSON, no terminal escape reaches the output, and a
# module that is a symbolic link out of the agent's folder is refused.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for f in tests/sandbox/attacks/*.lua; do
  name=$(basename "$f" .lua)
  [ "$name" = lpeg_reopen_depth ] && continue # needs a minute-long budget to build its pattern
  # unpack_c_index spends its whole budget in every call: at the default
  # budget a game is a minute of CPU under the sanitizers; 100 ms shows the
  # same (each call stopped at its budget, the game goes on)
  budget=""
  [ "$name" = unpack_c_index ] && budget="--budget 100"
  if ! timeout 60 "$bin" play $budget --seed 1 --log "$tmp/$name.log" --events "$tmp/$name.jsonl" "$f" agents/random.lua \
      > "$tmp/$name.out" 2>&1; then
    echo "FAIL: $name: aiwolf play did not finish cleanly"; tail -3 "$tmp/$name.out"; fails=$((fails + 1)); continue
  fi
  "$bin" check --quiet "$tmp/$name.log" || { echo "FAIL: $name: illegal log"; fails=$((fails + 1)); }
  if grep -q "$(printf '\033')" "$tmp/$name.out"; then echo "FAIL: $name: an escape byte reached the output"; fails=$((fails + 1)); fi
  if command -v python3 > /dev/null; then
    python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]" "$tmp/$name.jsonl" \
      || { echo "FAIL: $name: the events file is not valid JSON lines"; fails=$((fails + 1)); }
  fi
done
mkdir "$tmp/agent"
ln -s /etc/passwd "$tmp/agent/passwd.lua"
printf 'local ok, e = pcall(require, "passwd")\nprint(e)\nreturn {}\n' > "$tmp/agent/a.lua"
"$bin" play --seed 1 "$tmp/agent/a.lua" > "$tmp/sym.out" 2>&1
grep -q "not a file inside the agent's folder" "$tmp/sym.out" || { echo "FAIL: a symbolic link out of the folder was loaded"; fails=$((fails + 1)); }
# and a benign agent still may use whole-number floats as LPeg counts
printf 'local lpeg = require "lpeg"\nprint(lpeg.match(lpeg.P"a"^2.0, "aaa"), lpeg.match(lpeg.P(3.0), "abcd"))\nreturn {}\n' \
  > "$tmp/agent/floats.lua"
"$bin" play --seed 1 "$tmp/agent/floats.lua" > "$tmp/floats.out" 2>&1
grep -q "floats\] 4	4" "$tmp/floats.out" || { echo "FAIL: LPeg refused a whole-number float count"; cat "$tmp/floats.out" | head -3; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "attacks: ok"
exit $fails
