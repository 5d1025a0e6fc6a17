#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 5's acceptance and issue 6's scenario 5, V4L2 conformance:
# v4l2-compliance -s -f on the isocam video node reports 0 failed and
# 0 warnings, streaming every format, size and frame interval the node
# offers. Debian's 6.1 kernel has
# no CONFIG_VIDEO_ADV_DEBUG, so the debug register ioctls are reported as
# not supported, which v4l2-compliance counts as a pass.
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"

require_cmd v4l2-compliance v4l2-ctl

camera_start
NODE=$CAMERA_VIDEO
driver_debugfs

step "v4l2-compliance -d $NODE -s -f"
LOG=$RESULTS/v4l2-compliance.log
drops0=$(cam_stat dropped_frames)
run_compliance "$LOG" "isocam device $NODE:" -d "$NODE" -s -f
# One allowance, for the emulated machine's sake: when every warning is a
# frame sequence gap and the driver counted that many frames dropped for
# want of a queued buffer, v4l2-compliance was too slow to requeue (it
# asks for two buffers). That is the host, not the driver: run it again,
# once, and that run must be clean.
gaps=$(grep -aoE 'warn: [^	]*' "$LOG" | grep -c 'got sequence number' || true)
drops=$(($(cam_stat dropped_frames) - drops0))
if [ "$failed" = 0 ] && [ "$warnings" -gt 0 ] && [ "$gaps" = "$warnings" ] &&
	[ "$drops" -ge "$gaps" ]; then
	log "$gaps sequence gap(s), $drops frame(s) dropped with no buffer queued: v4l2-compliance fell behind; once more"
	LOG=$RESULTS/v4l2-compliance-2.log
	run_compliance "$LOG" "isocam device $NODE:" -d "$NODE" -s -f
fi
assert_eq "$failed" 0 "v4l2-compliance failures"
assert_eq "$warnings" 0 "v4l2-compliance warnings"
assert_eq "$succeeded" "$total" "v4l2-compliance tests succeeded"
assert_ge "$total" 100 "v4l2-compliance test count"
assert_eq "$status" 0 "v4l2-compliance exit status"
# The streaming sections really ran.
grep -q 'test MMAP (no poll): OK' "$LOG" || fail "MMAP streaming was not tested"
grep -q 'test read/write: OK' "$LOG" || fail "read() was not tested"
grep -q 'test USERPTR (select): OK' "$LOG" || fail "USERPTR streaming was not tested"
# -f streamed every format, size and interval the node enumerates.
combos=$(v4l2-ctl -d "$NODE" --list-formats-ext | grep -c 'Interval: Discrete')
streamed=$(grep -a -c 'test MMAP for Format .*, Frame Size ' "$LOG" || true)
assert_ge "$combos" 60 "format/size/interval combinations the node offers"
assert_eq "$streamed" "$combos" "combinations v4l2-compliance -f streamed"
# The one check that needs CONFIG_VIDEO_ADV_DEBUG, said as such.
adv=$(grep -m1 'test VIDIOC_DBG_G/S_REGISTER' "$LOG" || true)
assert_match "$adv" ': OK' "the debug register test"
if grep -q '^CONFIG_VIDEO_ADV_DEBUG=y' "/boot/config-$(uname -r)" 2>/dev/null; then
	log "CONFIG_VIDEO_ADV_DEBUG=y: ${adv#"${adv%%[! ]*}"}"
else
	log "not run for want of CONFIG_VIDEO_ADV_DEBUG (Debian's kernel lacks it):${adv#*:}"
fi
log "v4l2-compliance -f streamed $streamed format/size/interval combinations"

detach_camera
stop_emu
unload_isocam_modules
log "60-driver-compliance: ok ($summary)"
