#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Smoke test of the VM harness with real peers: the kernel's own usbip
# host controller (vhci-hcd) and V4L2 test driver (vivid) load, and
# v4l2-compliance streams from vivid; then the project's modules load and
# unload through modprobe (their dependencies resolved by depmod).
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"

require_cmd modprobe v4l2-compliance

step "vhci-hcd"
modprobe vhci-hcd
assert_module_loaded vhci_hcd
wait_for '[ -d /sys/devices/platform/vhci_hcd.0 ]' 10 "the vhci_hcd.0 platform device"
log "vhci_hcd.0 ports: $(cat /sys/devices/platform/vhci_hcd.0/nports 2>/dev/null || echo ?)"

step "vivid"
vivid_start
node=$VIVID
log "vivid capture node: $node"

step "v4l2-compliance -s -d $node"
# vivid has a handful of known failures with this v4l-utils/kernel pair, so
# the exit status is not asserted; the summary must exist and count tests.
run_compliance "$RESULTS/v4l2-compliance-vivid.log" "vivid device" -s -d "$node"
log "v4l2-compliance exit status: $status"
assert_ge "$total" 101 "v4l2-compliance test count"
assert_ge "$succeeded" 90 "v4l2-compliance tests succeeded"

modprobe -r vivid
assert_module_unloaded vivid

step "the project's modules"
load_isocam_modules
lsmod | grep -E '^(isocam|ic1280) '
unload_isocam_modules
modprobe -r vhci-hcd
assert_module_unloaded vhci_hcd
log "smoke: ok"
