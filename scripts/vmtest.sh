#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vmtest.sh: `make vmtest`. VM suite scripts on the KERNEL= series
# alone, in one boot, judged as in `make check`: how CI runs the suite on
# the kernels other than the default.
# Environment:
#   VM_SCRIPTS  suite script names (default: all of tests/vm/suite/)
#   VM_TIMEOUT  per guest script limit (default 300)
# Logs go to build/vmtest-<series>/. The last line is `N passed, N failed`.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
series=${KERNEL:-6.1}
LOGS=$ROOT/build/vmtest-$series
VM_TIMEOUT=${VM_TIMEOUT:-300}
rm -rf "$LOGS"
mkdir -p "$LOGS"

# shellcheck source=scripts/lib-check.sh
. "$ROOT/scripts/lib-check.sh"

suite=()
if [ -n "${VM_SCRIPTS:-}" ]; then
	for n in $VM_SCRIPTS; do
		f=$ROOT/tests/vm/suite/${n%.sh}.sh
		[ -f "$f" ] || { echo "vmtest: no $f" >&2; exit 2; }
		suite+=("$f")
	done
else
	suite=("$ROOT"/tests/vm/suite/*.sh)
fi
section "vm: ${#suite[@]} suite scripts on $series ($("$ROOT/scripts/find-kernel.sh"))"
"$ROOT/tests/vm/harness/run-shards.sh" --keep-going --timeout "$VM_TIMEOUT" \
	--out "$LOGS/vm-suite" "${suite[@]}" 2>&1 | tee "$LOGS/vm-suite.log"
vm_tally "$LOGS/vm-suite/summary.txt" "${PIPESTATUS[0]}"
slowest "$LOGS/vm-suite"
print_verdict "$LOGS"
