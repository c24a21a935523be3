# SPDX-License-Identifier: MIT
# The library as others get it: `cmake --install` of this build into a temporary prefix, then
# everything built against that prefix alone (never the source tree):
#  - libhwsample.so.0 -> .so.0.1.0 with SONAME libhwsample.so.0, exporting exactly the
#    symbols core/libhwsample.map lists; every public header installed and compiling alone,
#    backend.h (the plugin ABI) also as C++ when there is a C++ compiler;
#  - (a) count_samples.c built with `cc $(pkg-config --cflags --libs hwsample)` reads a perf
#    file through the public API: its samples per event equal `hwsample dump`'s; linked
#    statically too (pkg-config --static) when the build installs libhwsample.a;
#  - (b) hello_backend.c, an out-of-tree backend built from the installed headers only (no
#    undefined hws_ symbols), loaded by the installed hwsample with --backend-dir: listed as
#    usable with its control, encodes task-clock/cpu-clock (--dry-run), and where software
#    events can be opened records a file that dump decodes through it and count_samples
#    counts;
#  - (c) a CMake project using find_package(hwsample) builds both and gets the same counts;
#  - the installed tree, moved elsewhere, still finds its own backends.
# In sanitizer builds the programs are built with the same sanitizers (the runtime must come
# first in a process that loads the instrumented library).
. "$(dirname "$0")/../e2e/lib/common.sh"

for t in cc pkg-config cmake nm readelf python3; do
	command -v $t >/dev/null || skip "$t not installed"
done
SRC=$HWS_SOURCE_DIR/tests/install
P=$TMP/prefix
FIX=$HWS_SOURCE_DIR/tests/fixtures/perf_data_converter/perf.data.lost_samples-4.4
SAN=
[ "${HWS_SANITIZE:-0}" = 1 ] && SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"

cmake --install "$HWS_BUILD_DIR" --prefix "$P" >"$TMP/install.log" 2>&1 ||
	{ fail "cmake --install: $(tail -5 "$TMP/install.log")"; finish; exit 1; }
so=$(find "$P" -name libhwsample.so.0 | head -1)
[ -n "$so" ] || { fail "no libhwsample.so.0 installed"; finish; exit 1; }
LIB=$(dirname "$so")
export PKG_CONFIG_PATH=$LIB/pkgconfig
unset HWS_BACKEND_DIR # the installed hwsample finds its plugins itself, or is told

# ---- the library, its exports and headers
eq "libhwsample.so.0 -> libhwsample.so.0.1.0" "$(readlink "$LIB/libhwsample.so.0")" libhwsample.so.0.1.0
eq "libhwsample.so -> libhwsample.so.0" "$(readlink "$LIB/libhwsample.so")" libhwsample.so.0
check "SONAME libhwsample.so.0" grep -q 'SONAME.*\[libhwsample.so.0\]' <(readelf -d "$LIB/libhwsample.so.0.1.0")
nm -D --defined-only "$LIB/libhwsample.so.0" | awk '{ sub(/@.*/, "", $3); if ($3 !~ /^HWSAMPLE_/) print $3 }' |
	sort -u >"$TMP/exported"
sed -n 's/^[[:space:]]*\(hws_[A-Za-z0-9_]*\);$/\1/p' "$HWS_SOURCE_DIR/core/libhwsample.map" | sort -u >"$TMP/listed"
check "exports are exactly core/libhwsample.map ($(wc -l <"$TMP/listed") symbols)" \
	diff "$TMP/exported" "$TMP/listed"
eq "pkg-config version" "$(pkg-config --modversion hwsample)" "$("$P/bin/hwsample" --version | cut -d' ' -f2)"
for h in "$HWS_SOURCE_DIR"/include/hwsample/*.h; do
	n=$(basename "$h")
	check "installed header $n" cmp -s "$h" "$P/include/hwsample/$n"
	check "<hwsample/$n> compiles alone" cc -fsyntax-only -Wall -Werror $(pkg-config --cflags hwsample) \
		-x c - <<<"#include <hwsample/$n>"
done
# a backend may be written in C++: the plugin ABI compiles as C++ (static_assert pins too)
if command -v c++ >/dev/null; then
	check "<hwsample/backend.h> compiles as C++" c++ -fsyntax-only -Wall -Werror \
		$(pkg-config --cflags hwsample) -x c++ - <<<"#include <hwsample/backend.h>"
fi

# ---- (a) a program through pkg-config
count_ok() { # what, counts-file, dump-json: "seen counted name" lines equal dump's per event
	local want
	want=$(python3 -c '
import json, sys, collections
c = collections.Counter(json.loads(l)["event"] for l in open(sys.argv[1]) if l.strip())
for e, n in sorted(c.items()): print(n, n, e)' "$3")
	eq "$1: samples per event, callback and decoder counts, equal hwsample dump's" \
		"$(sort -k3 "$2")" "$want"
}
if check "(a) cc \$(pkg-config --cflags --libs hwsample)" cc $SAN -Wall -Werror -o "$TMP/count" \
	"$SRC/count_samples.c" $(pkg-config --cflags --libs hwsample) \
	-Wl,-rpath,"$(pkg-config --variable=libdir hwsample)"; then
	check "(a) runs on the installed libhwsample.so.0" \
		test "$(ldd "$TMP/count" | sed -n 's/.*libhwsample.so.0 => \(.*\) (.*/\1/p')" -ef "$LIB/libhwsample.so.0"
	BD=$(pkg-config --variable=backenddir hwsample)
	"$TMP/count" "$FIX" "$BD" >"$TMP/a.out" 2>"$TMP/a.err" || fail "(a) count_samples: $(cat "$TMP/a.err")"
	"$P/bin/hwsample" dump -i "$FIX" --json >"$TMP/fix.json" 2>/dev/null
	count_ok "(a) $(basename "$FIX")" "$TMP/a.out" "$TMP/fix.json"
	eq "(a) three events" "$(wc -l <"$TMP/a.out")" 3
fi
if [ -e "$LIB/libhwsample.a" ]; then
	check "(a) static: pkg-config --static" cc $SAN -o "$TMP/count-static" "$SRC/count_samples.c" \
		$(pkg-config --cflags hwsample) -Wl,-Bstatic -lhwsample -Wl,-Bdynamic \
		$(pkg-config --static --libs hwsample | sed 's/-lhwsample//')
	check "(a) static: no libhwsample.so" sh -c "! ldd '$TMP/count-static' | grep -q libhwsample"
	"$TMP/count-static" "$FIX" "$(pkg-config --variable=backenddir hwsample)" >"$TMP/as.out" ||
		fail "(a) static count_samples"
	eq "(a) static: same counts" "$(cat "$TMP/as.out")" "$(cat "$TMP/a.out")"
else
	echo "note: this build installs no libhwsample.a (link-time optimization): static link not tried"
fi

# ---- (b) an out-of-tree backend
mkdir -p "$TMP/plugins"
if check "(b) plugin from the installed headers" cc -shared -fPIC -fvisibility=hidden -Wall -Werror \
	$(pkg-config --cflags hwsample) -o "$TMP/plugins/hws-hello.so" "$SRC/hello_backend.c" \
	-Wl,--no-undefined; then
	check "(b) plugin imports nothing of core" sh -c "! nm -D --undefined-only '$TMP/plugins/hws-hello.so' | grep -q ' hws_'"
	H=("$P/bin/hwsample" --backend-dir "$TMP/plugins")
	"${H[@]}" list >"$TMP/list" 2>&1
	check "(b) hwsample list: hello usable" grep -qE '^hello +usable' "$TMP/list"
	check "(b) hwsample list: its detect() reached the host table" grep -q 'hello: software events (PMU type 1) on a' "$TMP/list"
	eq "(b) hwsample list --controls hello: its control" "$("${H[@]}" list --controls hello 2>&1)" "period="
	"${H[@]}" --dry-run -b hello -e cpu-clock -c 250000 -- true >"$TMP/dry" 2>&1
	check "(b) dry run: software type" grep -qE '^ +type +1$' "$TMP/dry"
	check "(b) dry run: cpu-clock" grep -qE '^ +config +0x0$' "$TMP/dry"
	check "(b) dry run: the period" grep -qE '^ +sample_period +250000$' "$TMP/dry"
	if "$P/bin/hwsample" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
		"${H[@]}" -q -b hello -e task-clock -c 200000 -o "$TMP/h.data" -- "$HWS_WORKLOADS/cpuburn" 1 \
			>/dev/null 2>"$TMP/rec.err" || fail "(b) record with hello: $(tail -3 "$TMP/rec.err")"
		"${H[@]}" dump -i "$TMP/h.data" --json --raw >"$TMP/h.json" 2>/dev/null
		check "(b) dump: samples decoded by hello" grep -q '"backend":"hello"' "$TMP/h.json"
		check "(b) dump --raw: hello's own field" grep -q '"hello":0' "$TMP/h.json"
		check "(b) dump: no sample of another backend" sh -c "! grep -v '\"backend\":\"hello\"' '$TMP/h.json' | grep -q backend"
		"$TMP/count" "$TMP/h.data" "$TMP/plugins" >"$TMP/h.out" 2>&1 || fail "(a+b) count_samples"
		count_ok "(a+b) a file recorded with hello" "$TMP/h.out" "$TMP/h.json"
	else
		echo "note: software events cannot be opened here: the recording with hello is left out"
	fi
fi

# ---- (c) find_package(hwsample)
if check "(c) find_package(hwsample): configure" cmake -S "$SRC/consumer" -B "$TMP/consumer" \
	-DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$SAN" -DCMAKE_BUILD_TYPE=Debug \
	-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$TMP/c.log" 2>&1 &&
	check "(c) build" cmake --build "$TMP/consumer" >>"$TMP/c.log" 2>&1; then
	"$TMP/consumer/count_samples" "$FIX" "$(cat "$TMP/consumer/backend_dir.txt")" >"$TMP/c.out" 2>&1 ||
		fail "(c) count_samples: $(cat "$TMP/c.out")"
	eq "(c) same counts as the pkg-config build" "$(cat "$TMP/c.out")" "$(cat "$TMP/a.out")"
	check "(c) hwsample_BACKEND_DIR is the installed one" \
		test "$(cat "$TMP/consumer/backend_dir.txt")" -ef "$(pkg-config --variable=backenddir hwsample)"
	mkdir -p "$TMP/plugins2" && cp "$TMP/consumer/hws-hello.so" "$TMP/plugins2/"
	check "(c) its plugin loads" grep -qE '^hello +usable' \
		<("$P/bin/hwsample" --backend-dir "$TMP/plugins2" list 2>&1)
else
	tail -20 "$TMP/c.log"
fi

# ---- the installed tree, moved: its hwsample still finds its own backends
mv "$P" "$TMP/moved"
"$TMP/moved/bin/hwsample" list >"$TMP/mlist" 2>&1
check "moved install: its backends found (sw usable)" grep -qE '^sw +usable' "$TMP/mlist"
finish
