# SPDX-License-Identifier: MIT
# The record command line as core/cli/record_args.c reads it with getopt_long: attached
# arguments and grouped short options, -c FILE against -c PERIOD, KEY=VALUE words between
# options, the workload's own options left to it (after "--" and without it), and
# hwsample's messages for unknown, ambiguous and argument-less options.
. "$(dirname "$0")/lib/common.sh"

cd "$TMP" || exit 1
attr() { sed -n "s/^  $1  *//p" "$TMP/out" | head -1; }
expect_err() { # what, exit code, fixed string, args...
	local what=$1 code=$2 msg=$3; shift 3
	"$HWS_BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	eq "$what: exit code" "$?" "$code"
	check "$what: says '$msg' (got: $(head -c 300 "$TMP/err"))" grep -qF -- "$msg" "$TMP/err"
}

# attached arguments, --long=VALUE, grouped short options (-dc1000: -d, then -c 1000)
dry -b sw -e page-faults -dc1000 -m8 --output=o.data --duration=3 -- true
eq "attached: exit" $? 0
eq "attached -c1000 is the period" "$(attr sample_period)" 1000
check "grouped -d samples the data address" grep -q "^  sample_type .*ADDR" "$TMP/out"
check "attached -m8" grep -qx "mmap pages: 8 per ring" "$TMP/out"
check "--output=FILE" grep -qx "output: o.data" "$TMP/out"
check "--duration=3" grep -qx "duration: 3 s" "$TMP/out"
dry -besw -ecpu-clock -- true # -besw: -b with the argument "esw"
eq "-besw: exit" $? 2
check "-besw is -b esw" grep -qF "no backend or PMU named 'esw'" "$TMP/err"
"$HWS_BIN" --dry-r -b sw -e cpu-clock -- true >"$TMP/out" 2>&1 # an unambiguous prefix
eq "--dry-r: exit" $? 0
check "--dry-r is --dry-run" grep -q "^event 0: cpu-clock" "$TMP/out"

# -c FILE (a path, *.conf, or an existing file not starting with a digit) and -c PERIOD
printf '[run]\nperiod = 7777\n' >myconf
cp myconf 5000
dry -b sw -e cpu-clock -c myconf -- true
eq "-c existing file: exit" $? 0
check "-c myconf is the config file" grep -q "^config: myconf" "$TMP/out"
eq "-c myconf: its period" "$(attr sample_period)" 7777
dry -b sw -e cpu-clock -c 5000 -- true # a file named 5000 exists: still a period
eq "-c 5000: exit" $? 0
eq "-c 5000 is the period, not the file" "$(attr sample_period)" 5000
check "-c 5000: no config" sh -c "! grep -q '^config:' '$TMP/out'"
dry -b sw -e cpu-clock -c ./5000 -- true # with '/': the file
check "-c ./5000 is the config file" grep -q "^config: ./5000" "$TMP/out"
dry -b sw -e cpu-clock -cmyconf -- true # attached: the same rule
check "-cmyconf is the config file" grep -q "^config: myconf" "$TMP/out"
dry -b sw -e cpu-clock --count 300 -- true
eq "--count is always the period" "$(attr sample_period)" 300
expect_err "two config files" 2 "only one config file (-c myconf and ./5000)" \
	--dry-run -c ./5000 -c myconf -- true

# KEY=VALUE before, between and after options are controls (sw has none: it says which)
for args in "foo=1 -b sw -e cpu-clock" "-b sw foo=1 -e cpu-clock" "-b sw -e cpu-clock foo=1"; do
	# shellcheck disable=SC2086
	expect_err "control in '$args'" 2 "foo=1" --dry-run $args -- true
	check "control in '$args': named as a control" grep -q "has no controls" "$TMP/err"
done

# the workload's own options are its own, after "--" and without it
need_sw_events
args_of() { # the words the workload got, one per line
	"$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/w.data" "$@" 2>"$TMP/err"
}
eq "after --: sh -c 'echo -e'" "$(args_of -- sh -c 'printf "[%s]" "$0" "$@"' -e -o x -q)" \
	"[-e][-o][x][-q]"
eq "without --: the first word starts the workload" \
	"$(args_of sh -c 'printf "[%s]" "$0" "$@"' -e -o x -q A=1)" "[-e][-o][x][-q][A=1]"
"$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/ls.data" ls -l "$TMP/myconf" >"$TMP/ls.out" 2>"$TMP/err"
eq "ls -l: exit" $? 0
check "ls -l: ls got -l (a long listing)" grep -q '^-rw.* .*myconf$' "$TMP/ls.out"
check "ls -l: recorded to -o, not to the file -l" test -s "$TMP/ls.data" -a ! -e "$TMP/-l"
"$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/w.data" sh -c 'exit 3' -q
eq "workload's status with its own -q" $? 3
expect_err "-- then an option-like workload" 1 "cannot run '-q'" \
	-b sw -e cpu-clock -o "$TMP/w.data" -- -q

# hwsample's own messages (opterr off)
expect_err "unknown long option" 2 "unknown option '--bogus' (see hwsample record --help)" \
	-b sw --bogus -- true
expect_err "unknown long option with a value" 2 "unknown option '--bogus=1'" \
	-b sw --bogus=1 -- true
expect_err "unknown short option" 2 "unknown option '-x' (see hwsample record --help)" \
	-b sw -x -- true
expect_err "unknown short option in a group" 2 "unknown option '-x'" -b sw -qx -- true
expect_err "ambiguous prefix" 2 \
	"option '--no' is ambiguous: --no-status, --no-buildid-cache, --no-buildid, --no-inherit" \
	-b sw --no -- true
expect_err "short option without its argument" 2 "option -o needs an argument" -b sw -o
expect_err "grouped option without its argument" 2 "option -o needs an argument" -b sw -qo
expect_err "long option without its argument" 2 "option --output needs an argument" -b sw --output
expect_err "-c without an argument" 2 "option -c needs an argument" -b sw -c
finish
