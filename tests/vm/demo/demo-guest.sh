#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make demo` (scripts/demo.sh boots it with run-vm.sh).
# Each step prints what it does; whatever it writes into $RESULTS is copied
# to out/ on the host. Today: show the project's modules load. Next: plug
# the emulated camera over usbip and stream (add steps here, each leaving
# its files in $RESULTS).
. "$ISOCAM_ROOT/tests/vm/lib.sh"

demo_step() { printf '\n### %s\n' "$*"; }

demo_step "guest kernel"
uname -a

demo_step "the project's modules, installed by the harness"
ls -l "/lib/modules/$(uname -r)/extra/"

demo_step "load them (modprobe resolves their dependencies)"
load_isocam_modules
lsmod | grep -E '^(Module|isocam|ic1280) ' | tee "$RESULTS/lsmod.txt"

demo_step "modinfo"
for m in $ISOCAM_MODULES; do
	modinfo "$m"
	echo
done | tee "$RESULTS/modinfo.txt"

demo_step "kernel log"
dmesg | grep -iE 'isocam|ic1280' | tee "$RESULTS/dmesg.txt" || echo "(no messages from the modules)"

demo_step "unload"
unload_isocam_modules
lsmod | grep -E '^(isocam|ic1280) ' || echo "isocam and ic1280 unloaded"
echo "demo: ok"
