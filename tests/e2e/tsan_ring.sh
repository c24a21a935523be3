#!/bin/bash
# SPDX-License-Identifier: MIT
# The ring reader and the AUX engine under ThreadSanitizer: tests/unit/test_ring.c and
# test_aux.c are compiled with core/kernel/ring.c core/kernel/aux.c core/util/errors.c core/util/strbuf.c and `cc -fsanitize=thread`
# directly (no CMake, no other core code; -DHWS_TEST_STANDALONE leaves out the perf.data
# cross-check, which needs the file writer) and run; any TSAN report fails the test
# (halt_on_error, exitcode 66). Exit 0 on success, 77 if the compiler cannot build TSAN
# binaries here.
. "$(dirname "$0")/lib/common.sh"
src=${HWS_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}

flags=(-std=gnu11 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -D_GNU_SOURCE
       -DHWS_TEST_STANDALONE
       -Wall -Wextra -Wno-unused-parameter
       -I"$src/include" -I"$src/core" -I"$src/tests")
core=("$src/core/kernel/ring.c" "$src/core/kernel/aux.c" "$src/core/util/errors.c" "$src/core/util/strbuf.c")

# Can this toolchain link a TSAN binary at all?
echo 'int main(void){return 0;}' > "$TMP/probe.c"
if ! "$cc" -fsanitize=thread "$TMP/probe.c" -o "$TMP/probe" 2>"$TMP/probe.log" ||
   ! "$TMP/probe" >/dev/null 2>&1; then
	skip "$cc cannot build/run ThreadSanitizer binaries here: $(cat "$TMP/probe.log")"
fi

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export HWS_LOG_LEVEL=${HWS_LOG_LEVEL:-0}
# compile each source once, all at once (the compiles are most of this test's time), link
for f in "${core[@]}" "$src/tests/unit/test_ring.c" "$src/tests/unit/test_aux.c"; do
	o="$TMP/$(basename "$f" .c).o"
	"$cc" "${flags[@]}" -c -o "$o" "$f" 2>"$o.log" &
done
wait
tsan_clean() { [ "$1" -eq 0 ] && not grep -q 'ThreadSanitizer' "$2"; } # exit status, log
objs=("$TMP/ring.o" "$TMP/aux.o" "$TMP/errors.o" "$TMP/strbuf.o")
for t in test_ring test_aux; do
	"$cc" -fsanitize=thread -o "$TMP/$t" "$TMP/$t.o" "${objs[@]}" -lpthread \
		2>"$TMP/$t.cc.log" || cat "$TMP"/*.o.log >>"$TMP/$t.cc.log"
done
for t in test_ring test_aux; do
	check "$t builds with -fsanitize=thread" [ -x "$TMP/$t" ] || { cat "$TMP/$t.cc.log"; continue; }
	start=$(date +%s.%N)
	"$TMP/$t" >"$TMP/$t.log" 2>&1
	st=$?
	end=$(date +%s.%N)
	printf '%s under TSAN: exit %d, %.2fs\n' "$t" "$st" "$(echo "$end - $start" | bc)"
	if check "$t under TSAN: exit 0 and no report" tsan_clean "$st" "$TMP/$t.log"; then
		tail -1 "$TMP/$t.log"
	else
		cat "$TMP/$t.log"
	fi
done
finish
