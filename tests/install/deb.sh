#!/bin/sh
# cpack -G DEB: the package declares what the binary needs (every shared
# library it links, and libwebsockets' libuv plugin, loaded at run time), every
# dependency is a Debian package this system has, dpkg would install it here
# (--dry-run), and an extracted copy (dpkg-deb -x, a prefix somewhere else)
# runs, finds its shared files and plays a game with them.
set -u
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
for t in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $t > /dev/null || { echo "FAIL: no $t (apt-get install cmake dpkg-dev)"; exit 1; }
done

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out") > "$tmp/log" 2>&1 ||
  { echo "FAIL: cpack: $(tail -20 "$tmp/log")"; exit 1; }
deb=$(ls "$tmp"/out/aiwolf-lua_*.deb 2> /dev/null | head -1)
[ -n "$deb" ] || { echo "FAIL: no package: $(ls "$tmp/out")"; exit 1; }
dpkg-deb -f "$deb" Package Architecture Depends > "$tmp/fields"
grep -qx "Package: aiwolf-lua" "$tmp/fields" || fail "Package: $(cat "$tmp/fields")"
grep -qx "Architecture: $(dpkg --print-architecture)" "$tmp/fields" || fail "Architecture: $(cat "$tmp/fields")"
depends=$(sed -n 's/^Depends: //p' "$tmp/fields")
for want in libwebsockets-evlib-uv liblua5.4 lua-lpeg libjansson libuv1 libwebsockets zlib1g libc6; do
  echo "$depends" | grep -q "$want" || fail "Depends lacks $want: $depends"
done
# each library the binary links (NEEDED) comes from a package in Depends
for so in $(readelf -d "$build/aiwolf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  lib=$(ldd "$build/aiwolf" | sed -n "s/^[[:space:]]*$so => \(\/[^ ]*\) .*/\1/p")
  [ -n "$lib" ] || { fail "ldd does not find $so"; continue; }
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2> /dev/null | head -1 | cut -d: -f1)
  [ -z "$pkg" ] && pkg=$(dpkg -S "$lib" 2> /dev/null | head -1 | cut -d: -f1)
  case $pkg in
    "") fail "$lib belongs to no package" ;;
    libasan* | libubsan* | libgcc-s1) ;; # a sanitized build's, and libc6's own
    *) echo "$depends" | grep -q "$pkg" || fail "$lib ($pkg) is not in Depends: $depends" ;;
  esac
done
# every dependency is installable here: dpkg would install the package
if [ "$(id -u)" -eq 0 ]; then
  dpkg --dry-run -i "$deb" > "$tmp/dry" 2>&1 || fail "dpkg --dry-run -i: $(cat "$tmp/dry")"
fi
dpkg-deb -c "$deb" > "$tmp/contents"
for f in ./usr/bin/aiwolf ./usr/share/aiwolf/agents/sample.lua ./usr/share/aiwolf/meta/aiwolf/agent.lua \
         ./usr/share/aiwolf/templates/agent/spec.lua ./usr/share/man/man1/aiwolf-play.1 \
         ./usr/share/doc/aiwolf-lua/README.md; do
  grep -q " $f\$" "$tmp/contents" || fail "$f not in the package"
done
dpkg-deb -x "$deb" "$tmp/root"
r=$tmp/root/usr
"$r/bin/aiwolf" --version > "$tmp/v" 2>&1 || fail "--version: $(cat "$tmp/v")"
grep -q "^aiwolf-lua [0-9]" "$tmp/v" && grep -qx "data: $r/share/aiwolf" "$tmp/v" || fail "--version: $(cat "$tmp/v")"
"$r/bin/aiwolf" play --games 3 --quiet --seed 4 "$r/share/aiwolf/agents/sample.lua" "$r/share/aiwolf/agents/random.lua" \
  > "$tmp/play" 2>&1 || fail "play: $(tail -5 "$tmp/play")"
grep -q "agent faults (errors, time-outs, bad replies): 0" "$tmp/play" || fail "play: $(tail -5 "$tmp/play")"

[ $fails -eq 0 ] && echo "install_deb: ok"
exit $((fails > 0))
