# Sourced by the tests of play that stop or change a run under way: they wait
# for what the run has done (a game's log, a line it printed), never for a
# time. The bound (at least 300 s of polling) only stops a test that would
# hang; no loaded machine takes it. A run under way is $pid, ended when a
# wait fails.

# wait_until WHAT COMMAND...: polls until COMMAND succeeds (run anew each
# time: a function that looks, not a test of values expanded once).
wait_until() {
  what=$1
  shift
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    if [ $tries -ge 3000 ]; then
      echo "FAIL: never: $what"
      [ -z "${pid:-}" ] || kill -TERM "$pid" 2>/dev/null # the run waited on
      exit 1
    fi
    sleep 0.1
  done
}

# logs DIR: how many game logs DIR holds (play --log writes N.log as game N starts).
logs() { ls "$1" 2>/dev/null | grep -c '^[0-9]*\.log$' || true; }

# has_logs DIR N: whether DIR holds N game logs or more.
has_logs() { [ "$(logs "$1")" -ge "$2" ]; }
# wait_logs DIR N: until DIR holds N game logs (in one process, so game N-1 is over).
wait_logs() { wait_until "$2 game logs in $1" has_logs "$1" "$2"; }

# has_game DIR: whether DIR holds the log of a game that is over (its result
# line, the last, written as the game ends): with several processes
# (--jobs), a count of logs begun proves none over.
has_game() { grep -qs -- '^[0-9]*,result,' "$1"/*.log; }
# wait_game DIR: until a game logged in DIR is over.
wait_game() { wait_until "a game over in $1" has_game "$1"; }

# has_line FILE PATTERN: whether a line of FILE matches PATTERN.
has_line() { grep -q -- "$2" "$1" 2>/dev/null; }
# wait_line FILE PATTERN: until a line of FILE matches PATTERN.
wait_line() { wait_until "a line '$2' in $1" has_line "$1" "$2"; }
