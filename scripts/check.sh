#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check.sh: the test run behind `make check` (via `make check-run`).
#
# Environment (set by the Makefile; either may be empty):
#   UNIT_TESTS    cmocka test binaries; each test case counts once
#   FUZZ_TARGETS  libFuzzer binaries; each runs FUZZ_SECONDS (default 15)
#                 on build/fuzz-corpus/<name> (seeded from
#                 tests/fuzz/corpus/<name>/ when present) and counts once
#   VM_TIMEOUT    per guest script limit for the VM suite (default 300)
# Then tests/install/install.sh (counts once), the VM harness self-test
# (tests/vm/selftest/selftest.sh, counts once), `make demo`'s script, checked for
# the files it promises (one result), and the VM suite: every
# tests/vm/suite/*.sh, split across single-vCPU VMs, one more than the
# host has cores (tests/vm/harness/run-shards.sh; ISOCAM_VM_SHARDS=1: one boot),
# each script one result, the five slowest listed. The suite starts first
# and runs beside everything else: its guests leave the host's cores
# partly idle (waiting on their cameras' frame clocks and their 9p root),
# and under icount their verdicts do not depend on what else the host
# runs. Its output is shown when it ends.
# Logs go to build/check/. The last line is `N passed, N failed`; the exit
# status is non-zero if anything failed or nothing ran.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=$ROOT/build/check
FUZZ_SECONDS=${FUZZ_SECONDS:-15}
VM_TIMEOUT=${VM_TIMEOUT:-300}
rm -rf "$LOGS"
mkdir -p "$LOGS"

# shellcheck source=scripts/lib-check.sh
. "$ROOT/scripts/lib-check.sh"

# --- the VM suite, started first (shown last) ----------------------------------
suite=("$ROOT"/tests/vm/suite/*.sh)
suite_pid=
if [ -e "${suite[0]}" ]; then
	echo "check: the VM suite (${#suite[@]} scripts) starts now, beside the rest; its output: $LOGS/vm-suite.log"
	"$ROOT/tests/vm/harness/run-shards.sh" --keep-going --timeout "$VM_TIMEOUT" \
		--out "$LOGS/vm-suite" "${suite[@]}" >"$LOGS/vm-suite.log" 2>&1 </dev/null &
	suite_pid=$!
fi

# --- unit tests (cmocka) ------------------------------------------------------
unset CMOCKA_MESSAGE_OUTPUT CMOCKA_XML_FILE
for t in ${UNIT_TESTS:-}; do
	name=$(basename "$t")
	log=$LOGS/unit-$name.log
	section "unit: $name"
	if [ ! -x "$t" ]; then
		echo "check: $t is not built"
		bad "unit $name (not built)"
		continue
	fi
	timeout -k 10 300 "$t" >"$log" 2>&1
	status=$?
	cat "$log"
	# A binary may hold several groups: sum every summary it prints.
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
	if [ "$status" != 0 ] && [ "$f" = 0 ]; then
		# Crashed, timed out or died in a sanitizer before its summary.
		echo "check: $name exited $status without a cmocka failure count"
		ok "" "$p"
		bad "unit $name (exit status $status)"
		continue
	fi
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "check: $name printed no cmocka summary"
		bad "unit $name (no cmocka summary)"
		continue
	fi
	ok "" "$p"
	[ "$f" = 0 ] || bad "unit $name ($f failed)" "$f"
done

# --- fuzz targets (libFuzzer, bounded time) ---------------------------------
for t in ${FUZZ_TARGETS:-}; do
	name=$(basename "$t")
	log=$LOGS/fuzz-$name.log
	section "fuzz: $name (${FUZZ_SECONDS}s)"
	if [ ! -x "$t" ]; then
		echo "check: $t is not built"
		bad "fuzz $name (not built)"
		continue
	fi
	corpus=$ROOT/build/fuzz-corpus/$name
	mkdir -p "$corpus" "$LOGS/fuzz-artifacts"
	dirs=("$corpus")
	[ ! -d "$ROOT/tests/fuzz/corpus/$name" ] || dirs+=("$ROOT/tests/fuzz/corpus/$name")
	timeout -k 10 $((FUZZ_SECONDS + 120)) "$t" -max_total_time="$FUZZ_SECONDS" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$LOGS/fuzz-artifacts/$name-" "${dirs[@]}" >"$log" 2>&1
	status=$?
	grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|Done [0-9]+ runs)' "$log" | head -n 3
	if [ "$status" = 0 ]; then
		echo "check: fuzz $name: ok"
		ok
	else
		tail -n 40 "$log"
		echo "check: fuzz $name: exit status $status (artifacts in $LOGS/fuzz-artifacts)"
		bad "fuzz $name (exit status $status)"
	fi
done

# --- kernel style: checkpatch --strict, sparse, W=1 (make lint) ---------------
section "lint"
"$ROOT/scripts/lint.sh" 2>&1 | tee "$LOGS/lint.log"
if [ "${PIPESTATUS[0]}" = 0 ]; then ok; else bad_log lint "$LOGS/lint.log"; fi

# --- installed like a driver: make install, uninstall, DKMS ------------------
section "install (make install, make uninstall, DKMS)"
"$ROOT/tests/install/install.sh" 2>&1 | tee "$LOGS/install.log"
if [ "${PIPESTATUS[0]}" = 0 ]; then ok; else bad_log install "$LOGS/install.log"; fi

# --- the VM harness self-test -----------------------------------------------
section "vm: harness self-test"
"$ROOT/tests/vm/selftest/selftest.sh" "$LOGS/vm-selftest" 2>&1 | tee "$LOGS/vm-selftest.log"
if [ "${PIPESTATUS[0]}" = 0 ]; then ok; else bad "vm harness self-test"; fi

# --- make demo's run, in its own boot: what it promises is there ------------
section "demo (scripts/demo.sh)"
demo_out=$LOGS/demo-out
DEMO_OUT=$demo_out "$ROOT/scripts/demo.sh" -q 2>&1 | tee "$LOGS/demo.log"
demo_status=${PIPESTATUS[0]}
demo_ok=1
[ "$demo_status" = 0 ] || demo_ok=0
for f in demo.mp4 before.png after.png demo-hd.mkv; do
	[ -s "$demo_out/$f" ] || { echo "check: demo left no $f"; demo_ok=0; }
done
if [ "$demo_ok" = 1 ] && cmp -s "$demo_out/before.png" "$demo_out/after.png"; then
	echo "check: demo's before.png and after.png are the same picture"
	demo_ok=0
fi
if [ "$demo_ok" = 1 ]; then
	frames=$(ffprobe -v error -count_frames -select_streams v:0 \
		-show_entries stream=nb_read_frames -of csv=p=0 "$demo_out/demo.mp4")
	want=$(. "$demo_out/demo.env" && echo "$FRAMES")
	[ "$frames" = "$want" ] || { echo "check: demo.mp4 has $frames frames, not $want"; demo_ok=0; }
	echo "check: demo.mp4 holds $frames frames; before.png and after.png differ"
	hd=$(ffprobe -v error -count_frames -select_streams v:0 \
		-show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 \
		"$demo_out/demo-hd.mkv")
	want=$(. "$demo_out/demo.env" && echo "$HD_FRAMES")
	[ "$hd" = "mjpeg,1280,960,$want" ] ||
		{ echo "check: demo-hd.mkv is $hd, not mjpeg,1280,960,$want"; demo_ok=0; }
	echo "check: demo-hd.mkv holds $want 1280x960 MJPEG frames"
fi
if [ "$demo_ok" = 1 ]; then ok; else bad_log demo "$LOGS/demo.log"; fi

# --- the VM suite ---------------------------------------------------------------
section "vm: suite"
if [ -z "$suite_pid" ]; then
	echo "check: no tests/vm/suite/*.sh"
	bad "vm suite (no scripts)"
else
	wait "$suite_pid"
	suite_status=$?
	cat "$LOGS/vm-suite.log"
	vm_tally "$LOGS/vm-suite/summary.txt" "$suite_status"
	slowest "$LOGS/vm-suite"
fi

# --- verdict ------------------------------------------------------------------
print_verdict "$LOGS"
