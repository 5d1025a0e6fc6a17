#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/demo.sh: `make demo` (after `make deps` and `make`): boot the test
# VM, run tests/vm/demo/demo-guest.sh in it (it prints each step), then copy
# the files it left in its $RESULTS to out/.
#   DEMO_OUT   where the files go (default out/)
# Extra arguments go to tests/vm/run-vm.sh (e.g. --timeout 600).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${DEMO_OUT:-$ROOT/out}
RUN=$ROOT/build/demo
GUEST=$ROOT/tests/vm/demo/demo-guest.sh
name=$(basename "$GUEST" .sh)

echo "demo: booting the VM (Debian's kernel under QEMU) to run $name"
rm -rf "$RUN"
"$ROOT/tests/vm/run-vm.sh" --out "$RUN" "$@" "$GUEST"
status=$?

# The files the demo wants to keep: everything the guest put in RESULTS,
# plus the guest's kernel log and console for reference.
rm -rf "$DEST"
mkdir -p "$DEST"
if [ -d "$RUN/$name/results" ]; then
	cp -r "$RUN/$name/results/." "$DEST/"
fi
for f in dmesg.log console.log; do
	[ ! -f "$RUN/$f" ] || cp "$RUN/$f" "$DEST/vm-$f"
done

echo
echo "demo: files in $DEST:"
ls -l "$DEST"
if [ "$status" != 0 ]; then
	echo "demo: FAILED (see $RUN)"
	exit 1
fi
echo "demo: ok"
