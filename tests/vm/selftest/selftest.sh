#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the VM harness, run on the host by scripts/check.sh:
#   tests/vm/selftest/selftest.sh [OUTDIR]
# Builds the test-only module warnmod/ (WARN at load) outside the source
# tree, then boots ONE guest running, with --keep-going:
#   scripts/warn.sh   loads warnmod and exits 0  -> must FAIL, reason names
#                                                    the WARNING
#   scripts/clean.sh  checks env, writes a result -> must PASS (the splat
#                                                    is not charged to it)
#   scripts/exit3.sh  exits 3                     -> must FAIL, "exit status 3"
#   scripts/subtests.sh  a failed KTAP subtest, then a passing one
#                                                  -> must FAIL naming the
#                                                     first; the second ran
#   scripts/notok-exit0.sh  a failed subtest, exit 0 -> must FAIL
# and asserts that run-vm.sh exits non-zero and says exactly that.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=${1:-$ROOT/build/vm/selftest}
KVER=${KVER:-$("$ROOT/scripts/find-kernel.sh")} || exit 1
KDIR=${KDIR:-/lib/modules/$KVER/build}
export KVER

ME=selftest
# shellcheck source=tests/vm/selftest/lib-selftest.sh
. "$ROOT/tests/vm/selftest/lib-selftest.sh"

# Build warnmod in build/vm/warnmod (Kbuild builds in place with M=).
wdir=$ROOT/build/vm/warnmod
rm -rf "$wdir"
mkdir -p "$wdir"
cp "$ROOT/tests/vm/selftest/warnmod/warnmod.c" "$ROOT/tests/vm/selftest/warnmod/Kbuild" "$wdir/"
if ! make -s -C "$KDIR" M="$wdir" modules >"$wdir/build.log" 2>&1; then
	cat "$wdir/build.log"
	echo "selftest: NOT OK: cannot build warnmod"
	exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT"
# The guest must not see the host's /tmp (clean.sh checks).
touch /tmp/isocam-selftest-host
"$ROOT/tests/vm/harness/run-vm.sh" --quiet --keep-going --timeout 60 --out "$OUT" \
	"$ROOT/tests/vm/selftest/scripts/warn.sh" \
	"$ROOT/tests/vm/selftest/scripts/clean.sh" \
	"$ROOT/tests/vm/selftest/scripts/exit3.sh" \
	"$ROOT/tests/vm/selftest/scripts/subtests.sh" \
	"$ROOT/tests/vm/selftest/scripts/notok-exit0.sh" \
	>"$OUT/run-vm.stdout" 2>"$OUT/run-vm.stderr"
status=$?
rm -f /tmp/isocam-selftest-host
sed 's/^/selftest: run-vm: /' "$OUT/run-vm.stdout"

check "run-vm.sh exits 1 (got $status)" test "$status" = 1
check "warn.sh itself exited 0" test "$(cat "$OUT/warn/status" 2>/dev/null)" = 0
check "warn.sh FAILs with a reason naming the WARNING" \
	grep -qE '^FAIL warn \(kernel: WARNING: .*warnmod' "$OUT/run-vm.stdout"
check "the WARNING is in warn's kernel log" \
	grep -q 'deliberate warning for the harness self-test' "$OUT/warn/kmsg.log"
check "clean.sh PASSes after it in the same boot" \
	grep -qE '^PASS clean \(' "$OUT/run-vm.stdout"
check "clean.sh's result file came back" \
	grep -qx 'from the guest' "$OUT/clean/results/proof.txt"
check "what warn.sh left in /tmp was removed, and said so" \
	grep -q 'warn left in /tmp, removing: .*/tmp/selftest-left' "$OUT/console.log"
check "exit3.sh FAILs with its exit status" \
	grep -qE '^FAIL exit3 \(exit status 3 ' "$OUT/run-vm.stdout"
check "subtests.sh FAILs naming its failed subtest and why" \
	grep -qE '^FAIL subtests \(exit status 1 .*not ok: first fails # on purpose\)' "$OUT/run-vm.stdout"
check "the subtest after the failed one ran and passed" \
	grep -qx 'ok 2 second passes' "$OUT/subtests/output.log"
check "subtests.sh printed its KTAP plan" \
	grep -qx '1\.\.2' "$OUT/subtests/output.log"
check "a script that exits 0 after a failed subtest FAILs" \
	grep -qE '^FAIL notok-exit0 \(exit status 0 .*not ok: fails quietly' "$OUT/run-vm.stdout"
check "the guest's dmesg and console are saved" \
	test -s "$OUT/dmesg.log" -a -s "$OUT/console.log"

if [ "$bad" != 0 ]; then
	echo "selftest: harness self-test FAILED; run-vm.sh stderr:"
	cat "$OUT/run-vm.stderr"
	exit 1
fi
echo "selftest: harness self-test passed"
