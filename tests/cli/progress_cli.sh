#!/bin/sh
# Long runs: contest verify shows its progress on standard error (on a
# terminal: one line updated in place, ending with the whole), and --quiet
# turns it off; a second contest run into a folder that one is playing
# into is refused, and changes nothing there, and so are a report or
# verify of it, a merge of it or into it, and a merge into a folder
# holding what a contest writes. $1 is the aiwolf binary;
# runs from the project root.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli_expect.sh"
mkdir "$T/a" "$T/b"
cp agents/random.lua "$T/a/main.lua"
cp agents/tutorial.lua "$T/b/main.lua"
"$BIN" contest --quiet --seed 5 --work 5000000 --players 5 --games-per-entry 10 --jobs 1 --out "$T/c" "$T/a" "$T/b" \
    >/dev/null 2>"$T/err"
expect_rc "a small contest" 0 $?
if command -v script >/dev/null; then
    # a terminal on standard error (script's pty): the last progress line
    # says every game was compared
    script -qec "'$BIN' contest verify --jobs 1 '$T/c' >/dev/null" /dev/null >"$T/tty" </dev/null
    expect_rc "verify on a terminal" 0 $?
    tr '\r' '\n' < "$T/tty" > "$T/lines"
    expect_grep "verify's progress ends with every game" "^.*aiwolf contest verify: 4/4 games, [0-9.]* games/s, ETA -, 0 differ$" "$T/lines"
    script -qec "'$BIN' contest verify --quiet --jobs 1 '$T/c' >/dev/null" /dev/null >"$T/tty" </dev/null
    expect_rc "verify --quiet on a terminal" 0 $?
    expect_no_grep "verify --quiet shows no progress on a terminal" "contest verify" "$T/tty"
else
    ok "verify on a terminal (skipped: no script(1))"
fi
"$BIN" contest verify --quiet --jobs 1 "$T/c" >"$T/out" 2>"$T/err"
expect_rc "verify --quiet" 0 $?
[ -s "$T/err" ] && bad "verify --quiet wrote on standard error: $(cat "$T/err")" || ok "verify --quiet is quiet"
expect_grep "verify's summary" "^4 games played again (all 4 played): 4 the same, 0 differ$" "$T/out"
# the folder held as a running contest holds it (flock(1) on the folder)
if command -v flock >/dev/null; then
    cp "$T/c/games.tsv" "$T/games.before"
    flock "$T/c" "$BIN" contest --seed 5 --work 5000000 --players 5 --games-per-entry 10 --jobs 1 --out "$T/c" \
        "$T/a" "$T/b" >"$T/out" 2>"$T/err"
    expect_rc "a second run into a folder in use" 2 $?
    expect_grep "a second run is told why" "^aiwolf contest: another aiwolf contest is playing into $T/c now (or a contest merge, report or verify is using it); wait for it" "$T/err"
    cmp -s "$T/c/games.tsv" "$T/games.before" && ok "the folder in use is unchanged" || bad "games.tsv changed"
    "$BIN" contest --quiet --seed 5 --work 5000000 --players 5 --games-per-entry 10 --jobs 1 --out "$T/c" \
        "$T/a" "$T/b" >/dev/null 2>"$T/err"
    expect_rc "the same run once the folder is free" 0 $?
    # report and verify wait for the run: its games.tsv may end in a line
    # being written, and it writes the reports itself when it ends
    echo "# not written again" >>"$T/c/report.md"
    flock "$T/c" "$BIN" contest report "$T/c" >"$T/out" 2>"$T/err"
    expect_rc "a report of a folder in use" 2 $?
    expect_grep "the report is told why" "^aiwolf contest report: another aiwolf contest is playing into $T/c now" "$T/err"
    [ "$(tail -n 1 "$T/c/report.md")" = "# not written again" ] && ok "the report wrote nothing" ||
        bad "report.md was written again"
    flock "$T/c" "$BIN" contest verify --quiet --jobs 1 "$T/c" >"$T/out" 2>"$T/err"
    expect_rc "a verify of a folder in use" 2 $?
    expect_grep "the verify is told why" "^aiwolf contest verify: another aiwolf contest is playing into $T/c now" "$T/err"
    [ -s "$T/out" ] && bad "the verify compared games: $(cat "$T/out")" || ok "the verify played nothing"
    # a verify only reads: another reader of the folder does not stop it
    flock -s "$T/c" "$BIN" contest verify --quiet --jobs 1 "$T/c" >"$T/out" 2>"$T/err"
    expect_rc "a verify beside another reader" 0 $?
    # a merge reads no slice a run is playing into
    flock "$T/c" "$BIN" contest merge --out "$T/fromheld" "$T/c" >"$T/out" 2>"$T/err"
    expect_rc "a merge of a slice in use" 2 $?
    expect_grep "the merge names the slice in use" "^aiwolf contest merge: another aiwolf contest is playing into $T/c now" "$T/err"
    [ ! -e "$T/fromheld/games.tsv" ] && ok "the merge of a slice in use wrote nothing" || bad "it wrote $T/fromheld/games.tsv"
    # nor does a merge write into a folder in use
    mkdir "$T/held"
    flock "$T/held" "$BIN" contest merge --out "$T/held" "$T/c" >"$T/out" 2>"$T/err"
    expect_rc "a merge into a folder in use" 2 $?
    expect_grep "the merge is told why" "^aiwolf contest merge: another aiwolf contest is playing into $T/held now" "$T/err"
    [ -z "$(ls -A "$T/held")" ] && ok "the merge wrote nothing there" || bad "the merge wrote: $(ls "$T/held")"
else
    ok "a folder in use (skipped: no flock(1))"
fi
# a folder without contest.cfg that holds what a contest writes (a
# person's report.md) is refused and left as it was
mkdir "$T/own"
echo mine > "$T/own/report.md"
"$BIN" contest --quiet --players 5 --games-per-entry 10 --out "$T/own" "$T/a" "$T/b" >"$T/out" 2>"$T/err"
expect_rc "a folder with a report.md of its own" 2 $?
expect_grep "the folder's report.md is named" "^aiwolf contest: $T/own has no contest.cfg but holds report.md, which a contest writes" "$T/err"
[ "$(cat "$T/own/report.md")" = mine ] && [ ! -e "$T/own/contest.cfg" ] && ok "the folder is left as it was" ||
    bad "the folder changed: $(ls "$T/own")"
# so is it for a merge: the person's report.md is not overwritten
"$BIN" contest merge --quiet --out "$T/own" "$T/c" >"$T/out" 2>"$T/err"
expect_rc "a merge into a folder with a report.md of its own" 2 $?
expect_grep "the merge names the report.md" "^aiwolf contest merge: $T/own has no contest.cfg but holds report.md, which a contest writes" "$T/err"
[ "$(cat "$T/own/report.md")" = mine ] && [ ! -e "$T/own/contest.cfg" ] && [ ! -e "$T/own/logs" ] &&
    ok "the merge left the folder as it was" || bad "the merge changed the folder: $(ls "$T/own")"
"$BIN" contest merge --quiet --out "$T/merged" "$T/c" >/dev/null 2>"$T/err"
expect_rc "a merge into a new folder" 0 $?
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
