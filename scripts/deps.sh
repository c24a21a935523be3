#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages hwsample needs to build, test and benchmark, if missing.
# Sourced by scripts/run and scripts/test; safe to run again.
set -euo pipefail
HWS_PACKAGES=(
	build-essential cmake pkg-config git
	libpfm4-dev libtraceevent-dev libelf-dev libdw-dev libinih-dev
	libcapstone-dev       # report --sort type,typeoff: decoding the sampled instructions
	libiberty-dev         # C++ and Rust demangling (cplus_demangle), as perf
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev   # convert --to-pprof: profile.proto, gzip
	g++                   # the C++ workload of the demangling test
	linux-perf            # the independent oracle for tests, and the benchmark peer
	golang-go             # go tool pprof: the independent reader of convert --to-pprof's output
	clang llvm            # libFuzzer builds of the fuzz targets
	clang-format          # the tree's style, checked by tests/tree/format.py
	jq time bc procps util-linux passwd   # test helpers (jq, /usr/bin/time, runuser, useradd)
	strace bsdutils       # config tests check nothing is opened; script(1) for the status line
	python3 python3-docutils   # comparison scripts; rst2man for the man page
	chromium              # c2c HTML report rendered headless in tests
)
hws_install_deps() {
	local missing=()
	for p in "${HWS_PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "hwsample: missing packages: ${missing[*]}; run as root or install them" >&2
		return 1
	fi
	echo "hwsample: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
