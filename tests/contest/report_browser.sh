#!/bin/sh
# The contest report in a real browser: render_report writes the page for the
# sample results (tests/contest/fixtures/results-sample.json), for 2 and 100
# made-up entries and for bad input; headless Chromium loads each and dumps
# the DOM after its scripts ran. The page must say data-rendered="ok" (or show
# its message for bad input), show every entry's name as text, log nothing to
# the console, show no error from window.onerror, and the hostile name must
# not have become elements; the provenance panel shows the program's version
# and each entry's SHA-256. It also takes a screenshot (1280 px wide); with
# REPORT_SCREENSHOT=FILE it is copied to FILE (docs/images/contest-report.png).
#   report_browser.sh RENDER_REPORT [AIWOLF]   (with AIWOLF, also the page of a
#   small real contest)
set -eu
render=$1
fixture=tests/contest/fixtures/results-sample.json
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "report_browser: $CHROMIUM not found: install chromium (apt-get install chromium; tests/run installs it)"
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/report_browser.XXXXXX")
profile=$tmp/profile
# Chromium's processes all carry the private profile in their command line:
# those are the ones this script started, and the only ones it ends.
sweep() {
  pids=$(pgrep -f -- "--user-data-dir=$profile" || true)
  [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
}
cleanup() { sweep; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

fails=0
fail() { echo "report_browser: $*"; fails=$((fails + 1)); }

# chrome LOG ARGS...: one headless run, at most 60 s; stderr (with the page's
# console) goes to LOG.
chrome() {
  log=$1; shift
  rc=0
  timeout -k 5 60 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$profile" --no-first-run --no-default-browser-check --disable-extensions \
    --disable-background-networking --disable-sync --disable-component-update \
    --enable-logging=stderr --v=0 "$@" 2>"$log" || rc=$?
  sweep
  return $rc
}

# page NAME JSON-FILE: renders NAME.html and loads it (open).
page() {
  "$render" "$2" "$tmp/$1.html" || { fail "$1: render_report failed"; return 1; }
  load "$1"
}
# load NAME: loads NAME.html, dumps its DOM to NAME.dom, checks the console
# and window.onerror.
load() {
  chrome "$tmp/$1.log" --dump-dom "file://$tmp/$1.html" > "$tmp/$1.dom" || {
    if [ "$rc" -eq 124 ]; then
      fail "$1: chromium did not finish in 60 s (an alert() waits forever: did the hostile name run as markup?)"
    else
      fail "$1: chromium failed (exit $rc)"; tail -5 "$tmp/$1.log"
    fi
    return 1; }
  if grep -q ':CONSOLE' "$tmp/$1.log"; then
    fail "$1: the page wrote to the console:"; grep ':CONSOLE' "$tmp/$1.log"
  fi
  if grep -q 'id="page-error"' "$tmp/$1.dom"; then
    fail "$1: window.onerror reported an error:"
    sed -n '/<div id="page-error"/,/<\/div>/p' "$tmp/$1.dom" | head -c 2000; echo
  fi
  return 0
}
has() { grep -qF -- "$2" "$tmp/$1.dom" || fail "$1: the page lacks: $2"; }
lacks() { ! grep -qiF -- "$2" "$tmp/$1.dom" || fail "$1: the page has: $2"; }
count() { grep -oF -- "$2" "$tmp/$1.dom" | wc -l; }

# made-up results: synth N FAULTY GAMES_DONE > file (entries "agent-001"...)
synth() {
  awk -v n="$1" -v faulty="$2" -v done="$3" 'BEGIN {
    printf "{\"format\":\"aiwolf-contest-results\",\"version\":1,\"contest\":{\"format\":\"seed2015\",";
    printf "\"players\":[15],\"seed\":\"18446744073709551615\",\"games_total\":2000,\"games_done\":%d,", done;
    printf "\"budget_ms\":100,\"memory_mb\":64,\"shard\":\"2/3\",\"fairness\":{\"seats_per_entry_min\":%d,", int(done*15/n);
    printf "\"seats_per_entry_max\":%d,\"role_share_max_dev\":0.021}},\"entries\":[", int(done*15/n)+1;
    for (i = 1; i <= n; i++) {
      g = int(done*15/n); p = int(g * (0.62 - 0.3 * (i - 1) / n)); r = p / g; z = 1.96;
      c = (r + z*z/(2*g)) / (1 + z*z/g); m = z * sqrt(r*(1-r)/g + z*z/(4*g*g)) / (1 + z*z/g);
      v = int(g * 0.73); vw = int(p * 0.6);
      f = (faulty && i % 7 == 3) ? i : 0;
      printf "%s{\"rank\":%d,\"name\":\"agent-%03d\",\"path\":\"agents/a%d.lua\",\"games\":%d,\"points\":%d,", (i > 1 ? "," : ""), i, i, i, g, p;
      printf "\"win_rate\":%.4f,\"ci_low\":%.4f,\"ci_high\":%.4f,", r, c - m, c + m;
      printf "\"by_role\":{\"VILLAGER\":{\"games\":%d,\"wins\":%d},\"WEREWOLF\":{\"games\":%d,\"wins\":%d}},", v, vw, g - v, p - vw;
      printf "\"by_team\":{\"VILLAGER\":{\"games\":%d,\"wins\":%d},\"WEREWOLF\":{\"games\":%d,\"wins\":%d}},", v, vw, g - v, p - vw;
      printf "\"by_players\":{\"15\":{\"games\":%d,\"wins\":%d}},", g, p;
      printf "\"faults\":{\"error\":%d,\"timeout\":%d,\"memory\":0,\"reply\":%d,\"lost\":0},", f, 2 * f, f % 5;
      printf "\"calls\":%d,\"call_us_median\":%.1f,\"call_us_p99\":%.1f}", g * 110, 20 + i, 300 + 9 * i;
    }
    # the skill rating: skills falling with rank, every pair in the matrix
    printf "],\"rating\":{\"games_fitted\":%d,\"games_skipped\":0,\"clusters\":%d,\"ranking_se\":0.05,", done, done;
    printf "\"ranking_se_independent\":0.05,\"unresolved_adjacent\":%d,\"entries\":[", n - 1;
    for (i = 1; i <= n; i++) {
      sk = 0.3 - 0.6 * (i - 1) / (n > 1 ? n - 1 : 1);
      printf "%s{\"name\":\"agent-%03d\",\"skill_rank\":%d,\"skill\":%.4f,\"se\":0.05,", (i > 1 ? "," : ""), i, i, sk;
      printf "\"ci_low\":%.4f,\"ci_high\":%.4f,\"games\":%d,\"p_outranks_next\":%s,", sk - 0.098, sk + 0.098, g, (i < n ? "0.6" : "null");
      printf "\"by_role\":{\"VILLAGER\":{\"skill\":%.4f,\"se\":0.07,\"games\":%d},", sk, v;
      printf "\"WEREWOLF\":{\"skill\":%.4f,\"se\":0.09,\"games\":%d}}}", sk, g - v;
    }
    printf "],\"outranks\":[";
    for (i = 1; i <= n; i++) {
      printf "%s[", (i > 1 ? "," : "");
      for (j = 1; j <= n; j++) printf "%s%.3f", (j > 1 ? "," : ""), (i < j ? 0.9 : i > j ? 0.1 : 0.5);
      printf "]";
    }
    printf "]}}\n";
  }'
}

# 1. the sample: six entries, faults, a hostile name
if page sample "$fixture"; then
  has sample 'data-rendered="ok"'
  for name in takeda sample kitsune-v2 slowpoke random \
      '"&gt;&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;script&gt;alert('"'pwn'"')&lt;/script&gt; &amp; "Co"'; do
    has sample ">$name<"    # a whole text node
  done
  has sample 'agents/&lt;evil&gt;.lua'
  lacks sample '<img'
  [ "$(count sample '<script')" -eq 3 ] || fail "sample: the page has $(count sample '<script') script elements, not 3"
  for id in standings chart-winrate roles chart-faults chart-skill outranks role-skill skill-summary; do
    has sample "id=\"$id\""
  done
  has sample 'Skill, apart from the luck of the deal'
  has sample 'title="P(takeda outranks sample) = 92.4 %"'
  has sample '>+0.46<'   # takeda as seer
  [ "$(count sample '<div class="n">')" -eq 6 ] || fail "sample: the standings do not have 6 rows"
  has sample 'regulation'
  has sample 'of 600 · complete'
  has sample '5 and 15 players'
  has sample '>15 players<'
  has sample '>Medium<'
  lacks sample 'id="no-faults"'
  # provenance: the program, the options, each entry's SHA-256, the sessions
  for id in provenance entry-hashes sessions; do has sample "id=\"$id\""; done
  has sample '>0.1.0+1a2b3c4<'
  has sample '>0000000000000000000000000000000000000000000000000000000000000abc<'
  has sample '--set max_days=50'
  has sample '>interrupted<'
  has sample '16 cores · 16 jobs'
fi

# the standings sort: a script added to the page clicks the headers and notes
# the order of the ranks (by name up, by name down, by p99 time: slowest first)
"$render" "$fixture" "$tmp/sorted.html"
sed 's|</body>|<script>(function () {\
  var buttons = Array.prototype.slice.call(document.querySelectorAll("#standings thead button"));\
  function click(label) { buttons.filter(function (b) { return b.textContent.indexOf(label) === 0; })[0].click(); }\
  function ranks() { return Array.prototype.map.call(document.querySelectorAll("#standings tbody td.rank"),\
    function (td) { return td.textContent; }).join(","); }\
  var order = [];\
  click("Entry"); order.push(ranks()); click("Entry"); order.push(ranks()); click("Wall p99"); order.push(ranks());\
  document.body.dataset.sorted = order.join(" ");\
})();</script></body>|' "$tmp/sorted.html" > "$tmp/sorting.html"
if load sorting; then
  has sorting 'data-sorted="4,3,6,2,5,1 1,5,2,6,3,4 5,3,2,1,4,6"'
fi

# 2. two entries without faults, and a hundred with some, the contest under way
synth 2 0 2000 > "$tmp/two.json"
if page two "$tmp/two.json"; then
  has two 'data-rendered="ok"'
  has two '>agent-001<'
  has two '>agent-002<'
  has two 'No faults'
  has two 'id="outranks"'
  has two '>+0.300  ·  60 %<'
fi
synth 100 1 1400 > "$tmp/hundred.json"
if page hundred "$tmp/hundred.json"; then
  has hundred 'data-rendered="ok"'
  [ "$(count hundred '<div class="n">')" -eq 100 ] || fail "hundred: the standings do not have 100 rows"
  has hundred '>agent-100<'
  has hundred '>incomplete<'
  has hundred 'id="chart-faults"'
  has hundred 'id="role-skill"'
  [ "$(count hundred 'outranks agent-')" -eq 9900 ] || fail "hundred: the outranks matrix does not have 100 x 99 cells"
fi

# 2b. results version 2: two entries tied for first (they share the rank
# "1="), one behind, and two not ranked (one with a hostile name), listed
# apart with the reason; CPU and wall time per call
cat > "$tmp/v2.json" <<'JSON'
{"format": "aiwolf-contest-results", "version": 2,
 "contest": {"format": "seed2015", "players": [15], "seed": "7", "games_total": 4, "games_done": 4, "budget_ms": 100,
  "memory_mb": 64, "work": 3000000, "shard": "1/1", "fairness": {"seats_per_entry_min": 8, "seats_per_entry_max": 9,
  "role_share_max_dev": 0.05, "meetings_min": 4, "meetings_max": 4}, "fault_policy": "calls=5%,games=50%",
  "ranking": "by win rate", "interval": "per game"},
 "entries": [
  {"rank": 1, "rank_label": "1=", "name": "alpha", "path": "a/", "games": 4, "seats": 9, "points": 6, "win_rate": 0.666667,
   "ci_low": 0.3, "ci_high": 0.9, "by_role": {"VILLAGER": {"seats": 6, "wins": 4}, "WEREWOLF": {"seats": 3, "wins": 2}},
   "by_team": {"VILLAGER": {"seats": 6, "wins": 4}, "WEREWOLF": {"seats": 3, "wins": 2}}, "by_players": {"15": {"seats": 9, "wins": 6}},
   "faults": {"error": 0, "timeout": 0, "memory": 0, "reply": 0, "lost": 0}, "faulty_games": 0, "calls": 900,
   "time": {"cpu_us_median": 40.1, "cpu_us_p99": 900.5, "cpu_us_max": 2100, "wall_us_median": 55.2, "wall_us_p99": 2000.1}},
  {"rank": 1, "rank_label": "1=", "name": "beta", "path": "b/", "games": 4, "seats": 6, "points": 4, "win_rate": 0.666667,
   "ci_low": 0.25, "ci_high": 0.92, "by_role": {"VILLAGER": {"seats": 6, "wins": 4}},
   "by_team": {"VILLAGER": {"seats": 6, "wins": 4}}, "by_players": {"15": {"seats": 6, "wins": 4}},
   "faults": {"error": 1, "timeout": 0, "memory": 0, "reply": 0, "lost": 0}, "faulty_games": 1, "calls": 600,
   "time": {"cpu_us_median": 30, "cpu_us_p99": 700, "cpu_us_max": 1500, "wall_us_median": 45, "wall_us_p99": 1800}},
  {"rank": 3, "rank_label": "3", "name": "gamma", "path": "c/", "games": 4, "seats": 8, "points": 2, "win_rate": 0.25,
   "ci_low": 0.05, "ci_high": 0.6, "by_role": {"WEREWOLF": {"seats": 8, "wins": 2}},
   "by_team": {"WEREWOLF": {"seats": 8, "wins": 2}}, "by_players": {"15": {"seats": 8, "wins": 2}},
   "faults": {"error": 0, "timeout": 0, "memory": 0, "reply": 0, "lost": 0}, "faulty_games": 0, "calls": 800,
   "time": {"cpu_us_median": 20, "cpu_us_p99": 500, "cpu_us_max": 900, "wall_us_median": 30, "wall_us_p99": 1000}}],
 "not_ranked": [
  {"why": "does not load or cannot start: none of its 300 calls was answered", "name": "broken", "path": "d/", "games": 4,
   "seats": 9, "points": 4, "win_rate": 0.44, "ci_low": 0.2, "ci_high": 0.7, "by_role": {}, "by_team": {}, "by_players": {},
   "faults": {"error": 9, "timeout": 0, "memory": 0, "reply": 0, "lost": 300}, "faulty_games": 4, "calls": 300,
   "time": {"cpu_us_median": 0, "cpu_us_p99": 0, "cpu_us_max": 0, "wall_us_median": 1, "wall_us_p99": 3}},
  {"why": "<b>120 of its 130 calls faulted</b>", "name": "<img src=x onerror=alert(2)>", "path": "e/", "games": 3,
   "seats": 5, "points": 1, "win_rate": 0.2, "ci_low": 0.01, "ci_high": 0.6, "by_role": {}, "by_team": {}, "by_players": {},
   "faults": {"error": 120, "timeout": 0, "memory": 0, "reply": 0, "lost": 0}, "faulty_games": 3, "calls": 130,
   "time": {"cpu_us_median": 3, "cpu_us_p99": 90, "cpu_us_max": 120, "wall_us_median": 5, "wall_us_p99": 150}}]}
JSON
if page v2 "$tmp/v2.json"; then
  has v2 'data-rendered="ok"'
  [ "$(count v2 '<td class="rank">1=</td>')" -ge 2 ] || fail "v2: the tie is not shown as 1= twice"
  has v2 '<td class="rank">3</td>'
  has v2 'id="not-ranked"'
  has v2 '>broken<'
  has v2 'none of its 300 calls was answered'
  has v2 '&lt;b&gt;120 of its 130 calls faulted&lt;/b&gt;'
  has v2 '&lt;img src=x onerror=alert(2)&gt;'
  lacks v2 '<img'
  lacks v2 'class="banner warn"'
  has v2 'CPU p99'
  has v2 'no further tie-break'
  has v2 '3,000,000 work units'
  [ "$(count v2 '<div class="n">')" -eq 5 ] || fail "v2: not 3 ranked and 2 unranked rows"
fi

# 3. no data and bad data: a message, not a blank page and not an error
: > "$tmp/empty.json"
if page empty "$tmp/empty.json"; then
  has empty 'data-rendered="nodata"'
  has empty 'No results in this page'
fi
printf '{"format": "aiwolf-contest-results", "entries": [' > "$tmp/broken.json"
if page broken "$tmp/broken.json"; then
  has broken 'data-rendered="bad-data"'
  has broken 'not valid JSON'
fi
printf '{"format": "something else", "entries": []}' > "$tmp/other.json"
if page other "$tmp/other.json"; then
  has other 'data-rendered="bad-data"'
  has other 'not the results of an aiwolf contest'
fi

# 3b. the page of a real contest, as `aiwolf contest` writes it
if [ -n "${2:-}" ]; then
  "$2" contest --quiet --games-per-entry 6 --seed 3 --jobs 2 --out "$tmp/real" \
    agents/random.lua agents/sample.lua tests/contest/entries/crash tests/contest/entries/broken 2>/dev/null > /dev/null \
    || fail "real: the contest failed"
  cp "$tmp/real/report.html" "$tmp/real.html"
  if load real; then
    has real 'data-rendered="ok"'
    for name in random sample crash broken; do has real ">$name<"; done
    for id in chart-skill outranks role-skill; do has real "id=\"$id\""; done
    has real 'id="not-ranked"'
    has real 'does not load'
    has real 'id="provenance"'
    has real ">$(sha256sum agents/sample.lua | cut -c1-64)<"
    has real ">$("$2" --version | head -n 1 | cut -d' ' -f2)<"
  fi
fi

# 4. a screenshot at 1280 px
"$render" "$fixture" "$tmp/shot.html"
if chrome "$tmp/shot.log" --hide-scrollbars --window-size=1280,2000 --screenshot="$tmp/shot.png" "file://$tmp/shot.html" >/dev/null; then
  if [ "$(head -c 4 "$tmp/shot.png" | od -An -c | tr -d ' ')" != '211PNG' ]; then
    fail "screenshot: no PNG written"
  elif [ -n "${REPORT_SCREENSHOT:-}" ]; then
    cp "$tmp/shot.png" "$REPORT_SCREENSHOT"
    echo "report_browser: screenshot in $REPORT_SCREENSHOT"
  fi
else
  fail "screenshot: chromium failed (exit $rc)"
fi

if [ "$fails" -ne 0 ]; then
  echo "report_browser: $fails failure(s)"
  exit 1
fi
echo "report_browser: ok"
