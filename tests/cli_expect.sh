# cli_expect.sh: the checks the command-line scripts share (sourced by
# tests/logcheck/cli.sh and tests/replay/cli.sh): each prints "ok   NAME"
# or "FAIL NAME (why)" and counts the failures in $fails.
fails=0
ok() { printf 'ok   %s\n' "$1"; }
bad() { printf 'FAIL %s\n' "$1"; fails=$((fails + 1)); }
expect_rc() { # name want_rc actual_rc
    if [ "$3" -eq "$2" ]; then ok "$1"; else bad "$1 (exit $3, want $2)"; fi
}
expect_grep() { # name pattern file
    if grep -q -- "$2" "$3"; then ok "$1"; else bad "$1 (no '$2' in output:)"; cat "$3"; fi
}
expect_no_grep() { # name pattern file
    if grep -q -- "$2" "$3"; then bad "$1 ('$2' in output:)"; cat "$3"; else ok "$1"; fi
}
