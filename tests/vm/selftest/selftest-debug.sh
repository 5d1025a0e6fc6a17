#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the VM harness on the debug kernel, run by
# scripts/check-debug.sh:
#   tests/vm/selftest/selftest-debug.sh KERNEL_ENV [OUTDIR]
# KERNEL_ENV is run-vm.sh's --kernel-env file (its KDIR builds the test
# modules). Builds badmods/ outside the source tree, then boots
# ONE guest running, with --keep-going:
#   scripts/leak.sh   loads isocam_leaktest, exits 0 -> must FAIL, reason
#                                                      names kmemleak and
#                                                      the leaking function
#   scripts/uaf.sh    loads isocam_uaftest, exits 0  -> must FAIL, reason
#                                                      names the KASAN UAF
#   scripts/clean.sh  checks env, writes a result     -> must PASS: neither
#                                                      report is charged
#                                                      to it
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KERNEL_ENV=${1:?usage: selftest-debug.sh KERNEL_ENV [OUTDIR]}
OUT=${2:-$ROOT/build/vm/selftest-debug}
# shellcheck source=/dev/null
. "$KERNEL_ENV"

ME=selftest-debug
# shellcheck source=tests/vm/selftest/lib-selftest.sh
. "$ROOT/tests/vm/selftest/lib-selftest.sh"

mdir=$ROOT/build/vm/badmods
rm -rf "$mdir"
mkdir -p "$mdir"
cp "$ROOT"/tests/vm/selftest/badmods/{Kbuild,isocam_uaftest.c,isocam_leaktest.c} "$mdir/"
if ! make -s -C "$KDIR" M="$mdir" modules >"$mdir/build.log" 2>&1; then
	cat "$mdir/build.log"
	echo "selftest-debug: NOT OK: cannot build tests/vm/selftest/badmods against $KDIR"
	exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT"
"$ROOT/tests/vm/harness/run-vm.sh" --kernel-env "$KERNEL_ENV" --quiet --keep-going \
	--timeout 120 --out "$OUT" \
	"$ROOT/tests/vm/selftest/scripts/leak.sh" \
	"$ROOT/tests/vm/selftest/scripts/uaf.sh" \
	"$ROOT/tests/vm/selftest/scripts/clean.sh" >"$OUT/run-vm.stdout" 2>"$OUT/run-vm.stderr"
status=$?
sed 's/^/selftest-debug: run-vm: /' "$OUT/run-vm.stdout"

check "run-vm.sh exits 1 (got $status)" test "$status" = 1
check "the guest booted $KVER" grep -q "Linux version $KVER " "$OUT/console.log" "$OUT/dmesg.log"
check "leak.sh itself exited 0" test "$(cat "$OUT/leak/status" 2>/dev/null)" = 0
check "leak.sh FAILs with kmemleak naming isocam_leaktest" \
	grep -qE '^FAIL leak \(kmemleak: unreferenced object .*allocated by isocam_leaktest_(lose|init)' "$OUT/run-vm.stdout"
check "uaf.sh itself exited 0" test "$(cat "$OUT/uaf/status" 2>/dev/null)" = 0
check "uaf.sh FAILs with KASAN's use-after-free in isocam_uaftest" \
	grep -qE '^FAIL uaf \(kernel: BUG: KASAN: (slab-)?use-after-free in isocam_uaftest_init' "$OUT/run-vm.stdout"
check "clean.sh PASSes after both in the same boot" \
	grep -qE '^PASS clean \(' "$OUT/run-vm.stdout"

if [ "$bad" != 0 ]; then
	echo "selftest-debug: FAILED; run-vm.sh stderr:"
	cat "$OUT/run-vm.stderr"
	exit 1
fi
echo "selftest-debug: passed"
