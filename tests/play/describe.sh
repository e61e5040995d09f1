#!/bin/sh
# --describe en|ja: the record says what each talk means.
set -eu
bin=$1
"$bin" play --seed 3 --describe en --no-agent-output agents/sample.lua agents/random.lua > /tmp/describe_en.$$
"$bin" play --seed 3 --describe ja --no-agent-output agents/sample.lua agents/random.lua > /tmp/describe_ja.$$
trap 'rm -f /tmp/describe_en.$$ /tmp/describe_ja.$$' EXIT
grep -q "will vote for Agent\[" /tmp/describe_en.$$ || { echo "no English description"; exit 1; }
grep -q "に投票する" /tmp/describe_ja.$$ || { echo "no Japanese description"; exit 1; }
if grep -q "talk .*: VOTE Agent" /tmp/describe_en.$$; then echo "protocol text left in the described record"; exit 1; fi
if "$bin" play --describe fr agents/random.lua 2>/dev/null; then echo "--describe fr accepted"; exit 1; fi
echo "describe: ok"
