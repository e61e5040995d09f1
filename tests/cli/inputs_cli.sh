#!/bin/sh
# What a new user is told for the wrong file or folder: a folder where a
# file goes and a file where a folder goes, a folder without a contest, a
# damaged contest.cfg (the line named), an output a long run could only
# write at its end (refused before the first game). $1 is the aiwolf
# binary; runs from the project root.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../cli_expect.sh"
A=agents/random.lua
R=$PWD/$A
mkdir "$T/dir" "$T/empty"
echo x > "$T/file"
# run NAME WANT_RC PATTERN ARGS...: aiwolf ARGS exits WANT_RC and says PATTERN on stderr
run() {
    name=$1 want=$2 pat=$3; shift 3
    "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null; expect_rc "$name: exit" "$want" $?
    expect_grep "$name" "$pat" "$T/err"
}
# a folder given for a file
run "check of a folder" 2 "^aiwolf check: $T/dir is a folder: give the logs in it ($T/dir/\*.log, or $T/dir/\*.log.gz of a contest)$" check "$T/dir"
run "replay of a folder" 2 "^aiwolf replay: $T/dir is a folder: give the logs in it" replay "$T/dir"
run "lint of a folder" 2 "^aiwolf lint: $T/dir: a folder, not a file$" lint "$T/dir"
: > "$T/empty.lua"
"$BIN" lint "$T/empty.lua" >"$T/out" 2>"$T/err"; expect_rc "lint of an empty file" 1 $?
expect_grep "lint of an empty file: as a game says it" "^$T/empty.lua: the file returns nothing: end it with 'return agent'" "$T/out"
run "lint -" 2 "^aiwolf lint: '-': lint reads agent files, not standard input" lint -
# a file given for the folder of many games' logs
run "play --games --log FILE" 2 "^aiwolf play: $T/file is a file: the logs of many games go into a folder" \
    play --games 3 --log "$T/file" $A
run "serve --log-dir FILE" 2 "^aiwolf serve: $T/file is a file: the logs of many games go into a folder" \
    serve -p 0 --log-dir "$T/file"
# --summary is written after the last game: refused before the first
run "play --summary in no folder" 2 "^aiwolf play: --summary: cannot write $T/no/s.json: its folder does not exist$" \
    play --games 3 --summary "$T/no/s.json" $A
expect_no_grep "no game played before --summary's refusal" "games of" "$T/out"
run "play --summary FOLDER" 2 "^aiwolf play: --summary: $T/dir is a folder, not a file$" \
    play --games 3 --summary "csv:$T/dir" $A
"$BIN" play --games 3 --quiet --summary "$T/dir/s.csv" $A >/dev/null 2>&1; expect_rc "play --summary in a folder" 0 $?
expect_grep "--summary written" "^agent," "$T/dir/s.csv"
run "play --summary -" 2 "^aiwolf play: --summary: '-' does not say a format: json:- or csv:- for standard output$" \
    play --games 3 --summary - $A
(cd "$T" && "$BIN" play --games 2 --log - "$R" >"$T/out" 2>"$T/err" </dev/null)
expect_rc "play --games --log -: exit" 2 $?
expect_grep "play --games --log -" "^aiwolf play: --log -: standard output takes one game's log; with --games give a folder" "$T/err"
[ ! -e "$T/-" ] && ok "play --games --log - makes no folder '-'" || bad "play --games --log - made a folder '-'"
# standard output that carries what tools read carries nothing else: the
# summary for people (and --profile) go to standard error
"$BIN" play --games 3 --jobs 1 --events - $A >"$T/out" 2>"$T/err"; expect_rc "play --games --events -" 0 $?
expect_no_grep "--events - is JSON lines only" '^[^{]' "$T/out"
expect_grep "--events -: the summary on standard error" "^3 games of 5 players" "$T/err"
"$BIN" play --games 3 --summary json:- $A >"$T/out" 2>"$T/err"; expect_rc "play --games --summary json:-" 0 $?
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["games"] == 3' "$T/out" 2>"$T/py" &&
    ok "--summary json:- is one JSON document" || bad "--summary json:- is not JSON alone: $(head -c 200 "$T/out")"
expect_grep "--summary json:-: the summary on standard error" "^3 games of 5 players" "$T/err"
(cd "$T" && "$BIN" serve -p 0 --games 2 --events - --agent 1="$R" --agent 2="$R" --agent 3="$R" --agent 4="$R" \
    --agent 5="$R" >"$T/out" 2>"$T/err" </dev/null)
expect_rc "serve --events -" 0 $?
[ ! -e "$T/-" ] && ok "serve --events - makes no file '-'" || bad "serve --events - wrote a file named '-'"
expect_grep "serve --events -: the events on standard output" '"event":"begin"' "$T/out"
expect_no_grep "serve --events - is JSON lines only" '^[^{]' "$T/out"
expect_grep "serve --events -: the port and the summary on standard error" "^2 games of 5 players" "$T/err"
# a log folder given as DIR/: its logs are DIR/SEED.log (here one that cannot
# be written, a folder in the way: the run ends with status 1)
mkdir -p "$T/ld/7.log"
"$BIN" serve -p 0 --seed 7 --log-dir "$T/ld/" --agent 1="$R" --agent 2="$R" --agent 3="$R" --agent 4="$R" \
    --agent 5="$R" >"$T/out" 2>"$T/err" </dev/null
expect_rc "serve: a log that cannot be written" 1 $?
expect_grep "serve --log-dir DIR/: the log's path" "^aiwolf serve: cannot write $T/ld/7.log: " "$T/err"
# a port in use with --http: no link to pages that are gone at once
python3 - "$BIN" "$T" <<'PY'
import socket, subprocess, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
with open(sys.argv[2] + "/err", "w") as err:
    rc = subprocess.run([sys.argv[1], "serve", "-p", str(s.getsockname()[1]), "--http", "0"],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err).returncode
open(sys.argv[2] + "/rc", "w").write(str(rc))
PY
expect_rc "serve on a port in use" 2 "$(cat "$T/rc")"
expect_grep "serve on a port in use: said" "cannot listen on 127.0.0.1:[0-9]*: " "$T/err"
expect_no_grep "serve on a port in use: no link to the pages" "http://" "$T/err"
# a contest with a typo in its rules writes nothing, so the corrected
# command starts it (a contest.cfg left behind refused it as another contest)
run "contest --set with a bad value" 2 "^aiwolf contest: setting max_talk: 'x' is not an integer from 0 to 1000000" \
    contest --set maxTalk=x --out "$T/typo" $A
[ ! -e "$T/typo" ] && ok "a refused contest leaves no folder" || bad "a refused contest left $(ls "$T/typo")"
run "contest --preset unknown" 2 "^aiwolf contest: unknown preset 'nope'" contest --preset nope --out "$T/typo" $A
[ ! -e "$T/typo" ] && ok "a refused contest leaves no folder (--preset)" || bad "a refused contest left $(ls "$T/typo")"
# contest folders: none, a file, one without a contest, a damaged contest.cfg
run "verify of no folder" 2 "^aiwolf contest verify: no folder '$T/nope'$" contest verify "$T/nope"
run "verify of a folder without a contest" 2 \
    "^aiwolf contest verify: '$T/empty' holds no contest (no contest.cfg): give the folder that 'aiwolf contest --out DIR' wrote$" \
    contest verify "$T/empty"
run "report of a file" 2 "^aiwolf contest report: '$T/file' is a file: give a contest's folder" contest report "$T/file"
run "merge of a folder without a contest" 2 "^aiwolf contest merge: '$T/empty' holds no contest" \
    contest merge --out "$T/m" "$T/empty"
printf 'aiwolf-contest\t1\nplayers\t5\nthis line has no tab\n' > "$T/empty/contest.cfg"
run "report of a damaged contest.cfg" 2 \
    "^aiwolf contest report: $T/empty/contest.cfg is not a contest configuration this version understands: line 3 is not KEY<tab>VALUE: 'this line has no tab'$" \
    contest report "$T/empty"
# aiwolf new --dir: a file, or nothing
run "new --dir FILE" 2 "^aiwolf new: --dir $T/file: a file, not a folder$" new --dir "$T/file" x
run "new --dir of no folder" 2 "^aiwolf new: --dir $T/nope: no such folder$" new --dir "$T/nope" x
# an agent file that loops or fills its memory when it runs at load: the
# file is named (the limit's own message does not name it)
echo 'while true do end' > "$T/loop.lua"
echo 'local t = {} for i = 1, 1e9 do t[i] = i end return {}' > "$T/mem.lua"
run "play of a file that loops at load" 2 "^aiwolf play: $T/loop.lua: at load, before any game: time budget of 50 ms exceeded" \
    play --budget 50 "$T/loop.lua"
run "connect of a file that fills its memory at load" 2 \
    "^aiwolf connect: $T/mem.lua: at load, before any game: memory cap of 8388608 bytes reached" \
    connect -p 1 --memory 8 "$T/mem.lua"
run "play --isolate of a file that loops at load" 2 "^aiwolf play: $T/loop.lua: at load, before any game: time budget of 50 ms" \
    play --isolate --budget 50 "$T/loop.lua"
# the NLP division's options without --nlp
run "connect --team without --nlp" 2 "^aiwolf connect: --team is for the NLP division: it needs --nlp URL" \
    connect -p 1 --team T $A
run "connect --lang=en without --nlp" 2 "^aiwolf connect: --lang is for the NLP division: it needs --nlp URL" \
    connect -p 1 --lang=en $A
# a server that is not there: where connect tried, for TCP and --nlp
run "connect to no server" 1 "^aiwolf connect: cannot connect to localhost:1: connection refused$" connect -p 1 $A
run "connect --nlp to no server" 1 "^aiwolf connect: cannot connect: .* (127.0.0.1:1)$" connect --nlp ws://127.0.0.1:1/ws $A
# serve --bind: localhost as the web pages take it, a name that is no
# address said so, the WebSocket server's IPv4 only said so
"$BIN" serve -p 0 --bind localhost --quiet --games 1 --agent 1=$A --agent 2=$A --agent 3=$A --agent 4=$A --agent 5=$A \
    >"$T/out" 2>"$T/err" </dev/null
expect_rc "serve --bind localhost" 0 $?
expect_grep "serve --bind localhost played" "^1 game of 5 players" "$T/out"
run "serve --bind NAME" 2 "^aiwolf serve: cannot listen on nonsense:0: 'nonsense' is not an IP address (give one such as 127.0.0.1" \
    serve -p 0 --bind nonsense
run "serve --nlp --bind ::" 2 "^aiwolf serve: '::' is not an IPv4 address: the web server listens on IPv4 only" \
    serve --nlp -p 0 --bind ::
run "play --http NAME:PORT" 2 "^aiwolf play: --http example.org:0: 'example.org' is not an IPv4 address" \
    play --http example.org:0 $A
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
