#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-debug.sh: `make check-debug`. The VM suite again, on a
# kernel that sees memory and locking bugs (KASAN, KFENCE, UBSAN,
# lockdep, kmemleak, SLUB debugging, debug lists and objects):
#   1. tests/vm/kernels/build.sh debug builds it from sid's
#      linux-source-7.2 (the newest kernel Debian ships) once and caches
#      it (/var/cache/isocam/);
#   2. the project's modules are built against it, in build/debug/mod/
#      (the tree's own .ko files stay 6.1's, for `make check`), with
#      sparse and W=1: any warning fails, so every run lints against 7.2;
#   3. tests/vm/selftest/selftest-debug.sh shows a use-after-free and a leak FAIL;
#   4. every tests/vm/suite/*.sh runs in ONE boot of it, each script
#      judged as in `make check`, plus a kmemleak scan after each
#      (tests/vm/harness/kernel-reports.sh; foreign reports the harness knows
#      are listed, with why, in tests/vm/harness/kernel-known.txt).
# Environment:
#   VM_TIMEOUT      per guest script limit (default 600: the debug kernel
#                   runs the suite about 1.7 times slower)
#   DEBUG_SCRIPTS   suite scripts to run instead of all (names, e.g.
#                   "60-driver-probe 62-driver-fault-control")
#   DEBUG_VM_MEM    the guest's memory in MB (default 1024)
# Logs go to build/check-debug/. The last line is `N passed, N failed`.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=$ROOT/build/check-debug
VM_TIMEOUT=${VM_TIMEOUT:-600}
# 1 GiB, not run-vm.sh's 2: kmemleak's scan reads every page's struct
# page, so its two scans after each script take 16-17 s of guest time
# instead of 25. (CI's lifetime scripts pass at 1 GiB; a script that
# needs more: DEBUG_VM_MEM=2048.)
DEBUG_VM_MEM=${DEBUG_VM_MEM:-1024}
rm -rf "$LOGS"
mkdir -p "$LOGS"

# shellcheck source=scripts/lib-check.sh
. "$ROOT/scripts/lib-check.sh"
finish() {
	print_verdict "$LOGS"
	exit
}

# --- 1. the kernel -------------------------------------------------------------
section "debug kernel (tests/vm/kernels/build.sh debug)"
kstart=$(date +%s)
debian_kver=$("$ROOT/scripts/find-kernel.sh" 2>/dev/null)
if ! kdir=$("$ROOT/tests/vm/kernels/build.sh" debug); then
	bad "debug kernel build"
	finish
fi
# shellcheck source=/dev/null
. "$kdir/env"
# Installing it must not change the kernel `make check` boots and builds for.
if [ "$("$ROOT/scripts/find-kernel.sh" 2>/dev/null)" = "$debian_kver" ]; then
	ok
else
	bad "the debug kernel changed what scripts/find-kernel.sh picks (was $debian_kver)"
fi
echo "check-debug: kernel $KVER from $kdir ($(($(date +%s) - kstart))s here; built in $(cat "$kdir/build-seconds")s)"

# --- 2. the modules, built for it ------------------------------------------------
section "modules for $KVER"
mod=$ROOT/build/debug/mod
rm -rf "$mod"
mkdir -p "$mod"
# Sources only: objects built for Debian's kernel must not look current.
(cd "$ROOT" && find Kbuild include core compat usb i2c-sensor \
	\( -name '*.c' -o -name '*.h' -o -name Kbuild \) -print0 |
	xargs -0 cp --parents -t "$mod")
if make -C "$KDIR" M="$mod" C=2 W=1 modules >"$LOGS/modules.log" 2>&1; then
	if grep -E 'warning:|error:' "$LOGS/modules.log"; then
		bad_log "sparse and W=1 against $KVER: warnings" "$LOGS/modules.log"
	else
		ok
	fi
else
	tail -n 40 "$LOGS/modules.log"
	bad_log "modules against $KDIR" "$LOGS/modules.log"
	finish
fi
env_file=$ROOT/build/debug/kernel.env
{
	printf 'KVER=%q\nIMAGE=%q\nMODDIR=%q\nKDIR=%q\n' "$KVER" "$IMAGE" "$MODDIR" "$KDIR"
	printf 'KCONFIG=%q\nMODULES=%q\n' "$KDIR/.config" "$mod"
	printf 'GUEST_MEM=%q\n' "$DEBUG_VM_MEM"
	printf 'CMDLINE=%q\n' "$(grep -v '^#' "$ROOT/tests/vm/kernels/cmdline" | tr '\n' ' ' | sed 's/ *$//')"
} >"$env_file"

# --- 3. the checkers catch what they are for -----------------------------------
section "vm: debug harness self-test"
"$ROOT/tests/vm/selftest/selftest-debug.sh" "$env_file" "$LOGS/vm-selftest" 2>&1 | tee "$LOGS/vm-selftest.log"
if [ "${PIPESTATUS[0]}" = 0 ]; then ok; else bad "debug harness self-test"; fi

# --- 4. the suite ------------------------------------------------------------------
section "vm: suite on $KVER"
suite=()
if [ -n "${DEBUG_SCRIPTS:-}" ]; then
	# a suite script's name, or a path from the root (a soak, say)
	for n in $DEBUG_SCRIPTS; do
		case "$n" in
		*/*) suite+=("$ROOT/$n") ;;
		*) suite+=("$ROOT/tests/vm/suite/${n%.sh}.sh") ;;
		esac
	done
else
	suite=("$ROOT"/tests/vm/suite/*.sh)
fi
"$ROOT/tests/vm/harness/run-shards.sh" --kernel-env "$env_file" --keep-going --timeout "$VM_TIMEOUT" \
	--out "$LOGS/vm-suite" "${suite[@]}" 2>&1 | tee "$LOGS/vm-suite.log"
vm_tally "$LOGS/vm-suite/summary.txt" "${PIPESTATUS[0]}"
slowest "$LOGS/vm-suite"
if [ -s "$LOGS/vm-suite/known-reports.txt" ]; then
	echo "check-debug: known foreign reports (tests/vm/harness/kernel-known.txt), not counted:"
	sed 's/^/check-debug:   /' "$LOGS/vm-suite/known-reports.txt"
fi
finish
