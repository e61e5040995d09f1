#!/bin/sh
# probe.sh CC TARGET ALLOWED -I... : the walls of one target (docs/architecture.md,
# "Walls"). With TARGET's own include path, a file that includes one
# third-party header must compile exactly when TARGET may use that library
# (ALLOWED: a space-separated list of lua jansson libuv lws zlib, or none) and fail
# to compile otherwise. Both ways are checked, so the probe cannot pass by a
# compiler that fails on everything or a wall that stops nothing.
cc=$1 target=$2 allowed=$3
shift 3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail=0 checked=0
for pair in lua:lua.h lua:lauxlib.h jansson:jansson.h libuv:uv.h \
            lws:libwebsockets.h zlib:zlib.h; do
  dep=${pair%%:*} header=${pair#*:}
  printf '#include <%s>\nint aw_probe(void);\nint aw_probe(void) { return 0; }\n' "$header" > "$dir/probe.c"
  if "$cc" -fsyntax-only "$@" "$dir/probe.c" 2> "$dir/err"; then got=yes; else got=no; fi
  case " $allowed " in *" $dep "*) want=yes ;; *) want=no ;; esac
  checked=$((checked + 1))
  if [ "$got" != "$want" ]; then
    fail=$((fail + 1))
    if [ "$want" = yes ]; then
      echo "FAIL $target: <$header> should compile (it may use $dep):"; sed 's/^/  /' "$dir/err"
    else
      echo "FAIL $target: <$header> compiled, but $target may not use $dep"
    fi
  elif [ "$want" = no ] && ! grep -q "docs/architecture.md" "$dir/err"; then
    fail=$((fail + 1))
    echo "FAIL $target: <$header> failed, but not at the wall:"; sed 's/^/  /' "$dir/err"
  fi
done
echo "$target: $((checked - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
