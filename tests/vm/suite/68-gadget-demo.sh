#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo GADGET=1`'s guest half in make check's one boot, so
# the gadget demo cannot break unseen: the camera plugged as a FunctionFS
# gadget on dummy_hcd, five seconds of ffmpeg with a control change from
# a second process, five seconds of 1280x960 MJPEG, every frame checked
# and every drop accounted for, then the unplug. (make check runs the
# USB/IP demo whole, host-side encoding included; that part is the same.)
# vm-timeout: 600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"

st=0
ISOCAM_DEMO_GADGET=1 bash "$ISOCAM_ROOT/tests/vm/demo/demo-guest.sh" || st=$?
[ "$st" = 0 ] || fail "the gadget demo failed (status $st)"
grep -qx 'TRANSPORT=bulk' "$RESULTS/demo.env" || fail "the gadget demo did not stream over bulk"
grep -qx 'GADGET=1' "$RESULTS/demo.env" || fail "the demo did not run as a gadget"
# The captures are the demo's to encode; here they only take space.
rm -f "$RESULTS/demo.yuyv" "$RESULTS/demo-hd.mjpeg"
log "68-gadget-demo: ok"
