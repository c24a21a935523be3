#!/bin/bash
# SPDX-License-Identifier: MIT
# The ring reader and the AUX engine under ThreadSanitizer: tests/unit/test_ring.c and
# test_aux.c are compiled with core/kernel/ring.c core/kernel/aux.c core/util/errors.c and `cc -fsanitize=thread`
# directly (no CMake, no other core code; -DHWS_TEST_STANDALONE leaves out the perf.data
# cross-check, which needs the file writer) and run; any TSAN report fails the test
# (halt_on_error, exitcode 66). Exit 0 on success, 77 if the compiler cannot build TSAN
# binaries here.
set -u
src=${HWS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
out=$(mktemp -d "${TMPDIR:-/tmp}/hws-tsan.XXXXXX")
trap 'rm -rf "$out"' EXIT
cc=${CC:-cc}

flags=(-std=gnu11 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -D_GNU_SOURCE
       -DHWS_TEST_STANDALONE
       -Wall -Wextra -Wno-unused-parameter
       -I"$src/include" -I"$src/core" -I"$src/tests")
core=("$src/core/kernel/ring.c" "$src/core/kernel/aux.c" "$src/core/util/errors.c")

# Can this toolchain link a TSAN binary at all?
echo 'int main(void){return 0;}' > "$out/probe.c"
if ! "$cc" -fsanitize=thread "$out/probe.c" -o "$out/probe" 2>"$out/probe.log" ||
   ! "$out/probe" >/dev/null 2>&1; then
	echo "SKIP: $cc cannot build/run ThreadSanitizer binaries here:"
	cat "$out/probe.log"
	exit 77
fi

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export HWS_LOG_LEVEL=${HWS_LOG_LEVEL:-0}
rc=0
# compile each source once, all at once (the compiles are most of this test's time), link
for f in "${core[@]}" "$src/tests/unit/test_ring.c" "$src/tests/unit/test_aux.c"; do
	o="$out/$(basename "$f" .c).o"
	"$cc" "${flags[@]}" -c -o "$o" "$f" 2>"$o.log" &
done
wait
objs=("$out/ring.o" "$out/aux.o" "$out/errors.o")
for t in test_ring test_aux; do
	"$cc" -fsanitize=thread -o "$out/$t" "$out/$t.o" "${objs[@]}" -lpthread \
		2>"$out/$t.cc.log" || cat "$out"/*.o.log >>"$out/$t.cc.log"
done
for t in test_ring test_aux; do
	if [ ! -x "$out/$t" ]; then
		echo "FAIL: $t does not build with -fsanitize=thread"
		cat "$out/$t.cc.log"
		rc=1
		continue
	fi
	start=$(date +%s.%N)
	"$out/$t" >"$out/$t.log" 2>&1
	st=$?
	end=$(date +%s.%N)
	printf '%s under TSAN: exit %d, %.2fs\n' "$t" "$st" "$(echo "$end - $start" | bc)"
	if [ "$st" -ne 0 ] || grep -q 'ThreadSanitizer' "$out/$t.log"; then
		echo "FAIL: $t under TSAN"
		cat "$out/$t.log"
		rc=1
	else
		tail -1 "$out/$t.log"
	fi
done
exit $rc
