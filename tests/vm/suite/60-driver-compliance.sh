#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# V4L2 conformance:
# v4l2-compliance -s -f on the isocam video node reports 0 failed and
# 0 warnings, streaming every format, size and frame interval the node
# offers. Debian's 6.1 kernel has no CONFIG_VIDEO_ADV_DEBUG, so there the
# debug register ioctls are reported as not supported, which
# v4l2-compliance counts as a pass; the debug kernel has it.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-compliance v4l2-ctl

camera_start
driver_debugfs

step "v4l2-compliance -d $NODE -s -f"
driver_compliance "$RESULTS/v4l2-compliance.log"
LOG=$COMPLIANCE_LOG
# USERPTR streaming ran too (MMAP and read(): driver_compliance).
grep -q 'test USERPTR (select): OK' "$LOG" || fail "USERPTR streaming was not tested"
# -f streamed every format, size and interval the node enumerates.
combos=$(v4l2-ctl -d "$NODE" --list-formats-ext | grep -c 'Interval: Discrete')
streamed=$(grep -a -c 'test MMAP for Format .*, Frame Size ' "$LOG" || true)
assert_ge "$combos" 60 "format/size/interval combinations the node offers"
assert_eq "$streamed" "$combos" "combinations v4l2-compliance -f streamed"
grep -aq 'test MMAP for Format MJPG, Frame Size 1280x960' "$LOG" ||
	fail "v4l2-compliance -f did not stream MJPEG at 1280x960"
# The one check that needs CONFIG_VIDEO_ADV_DEBUG, said as such. On a
# kernel with it (make check-debug's), the video node's registers are the
# sensor's: compliance tests them, and v4l2-dbg reads and writes them
# through the node (the "bridge") and through subdev 0 alike.
adv=$(grep -m1 'test VIDIOC_DBG_G/S_REGISTER' "$LOG" || true)
if grep -q '^CONFIG_VIDEO_ADV_DEBUG=y' "$ISOCAM_KCONFIG" 2>/dev/null; then
	assert_match "$adv" ': OK$' "the debug register test, supported"
	log "CONFIG_VIDEO_ADV_DEBUG=y: ${adv#"${adv%%[! ]*}"}"
	require_cmd v4l2-dbg
	out=$(v4l2-dbg -d "$NODE" -g 0x0000) || fail "v4l2-dbg -g 0x0000 failed"
	assert_match "$out" '= 12h' "chip ID high byte read through the node"
	out=$(v4l2-dbg -d "$NODE" -c subdev0 -g 0x0001) || fail "v4l2-dbg -c subdev0 -g 0x0001 failed"
	assert_match "$out" '= 80h' "chip ID low byte read through subdev 0"
	v4l2-dbg -d "$NODE" -s 0x5000 0x21 || fail "v4l2-dbg -s 0x5000 failed"
	out=$(v4l2-dbg -d "$NODE" -c subdev0 -g 0x5000) || fail "v4l2-dbg -g 0x5000 failed"
	assert_match "$out" '= 21h' "brightness register written through the node"
	v4l2-dbg -d "$NODE" -s 0x5000 0 || fail "v4l2-dbg -s 0x5000 0 failed"
	# v4l2-dbg says a failed read, but still exits 0.
	out=$(v4l2-dbg -d "$NODE" -g 0x6000 2>&1)
	assert_match "$out" 'VIDIOC_DBG_G_REGISTER failed for 0x6000' \
		"a register past the sensor's map, refused"
	log "v4l2-dbg: chip ID 0x1280 read, brightness register written and read back"
else
	assert_match "$adv" ': OK \(Not Supported\)' "the debug register test, unsupported"
	log "not run for want of CONFIG_VIDEO_ADV_DEBUG (Debian's kernel lacks it):${adv#*:}"
fi
log "v4l2-compliance -f streamed $streamed format/size/interval combinations"

detach_camera
stop_emu
unload_isocam_modules
log "60-driver-compliance: ok ($summary)"
