#!/bin/sh
# `contest report` on a recorded contest (tests/contest/fixtures/
# report_golden: 22 games of 5 and 15 players, an entry that does not load,
# a name with '"', '<', '&', '|' and UTF-8) writes report.md, results.csv
# and results.json byte for byte as in its expected/ folder but for this
# program's version, and report.html holds results.json made safe for the
# page: the report stack's formats must not drift when its code moves. The
# entries' files are not needed (their paths lead nowhere). After a
# deliberate change of a format, write the files anew with
# AW_GOLDEN_WRITE=1 and say why in the commit.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F=tests/contest/fixtures/report_golden
cp "$F/contest.cfg" "$F/games.tsv" "$F/provenance.tsv" "$tmp/"
"$bin" contest report "$tmp" > "$tmp/stdout" 2> "$tmp/stderr" || { echo "contest report failed:"; cat "$tmp/stderr"; exit 1; }
# this program's version (in "this report by" and report_version) differs per build
for f in report.md results.csv results.json report.html stdout; do
  sed -i -E 's/(this report by aiwolf-lua |"report_version": ")[0-9][0-9A-Za-z.+_-]*[0-9A-Za-z_+-]/\1VERSION/' "$tmp/$f"
done
if [ "${AW_GOLDEN_WRITE:-}" = 1 ]; then
  mkdir -p "$F/expected"
  for f in report.md results.csv results.json; do cp "$tmp/$f" "$F/expected/$f"; done
  echo "wrote $F/expected"
  exit 0
fi
st=0
for f in report.md results.csv results.json; do
  cmp -s "$F/expected/$f" "$tmp/$f" || { echo "$f differs from $F/expected/$f:"; diff "$F/expected/$f" "$tmp/$f" || true; st=1; }
done
cmp -s "$F/expected/report.md" "$tmp/stdout" || { echo "the report on standard output is not report.md"; st=1; }
python3 - "$tmp/report.html" "$tmp/results.json" <<'PY' || st=1
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script id="results" type="application/json">(.*?)</script>', page, re.S)
if not m:
    sys.exit("report.html: no results element")
inner = m.group(1)
if any(c in inner for c in "<>&"):
    sys.exit("report.html: '<', '>' or '&' left raw in the results")
if json.loads(inner) != json.load(open(sys.argv[2], encoding="utf-8")):
    sys.exit("report.html: its results are not results.json")
PY
[ $st -eq 0 ] && echo ok
exit $st
