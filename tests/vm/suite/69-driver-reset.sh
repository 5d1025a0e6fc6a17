#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A USB reset (usbreset, USBDEVFS_RESET; the USB core resets a device the
# same way after some errors), for each transport:
#  - while idle: the driver stays bound, the video node is the same, the
#    format and a control set before it are still set, and it streams;
#  - while streaming: the capture goes on to its end with good frames (the
#    one the reset cut short may be flagged ERROR), its sequence numbers
#    skipping the frames the reset cost, and the
#    control set before it is still in effect;
#  - no error line;
#  - a bridge whose firmware hangs while a capture runs (isocam-emu
#    --hostile=vendor-wedge: vendor requests unanswered until a reset)
#    is reset by the driver when a control write times out; then a
#    control write lands and the capture goes on to its end.
# Over USB/IP vhci_hcd resets the port itself; the camera sees the
# descriptors read again and its configuration and alt setting restored.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

PAUSE="the reset"
. "$ISOCAM_ROOT/tests/vm/lib/pause.sh"

require_cmd usbip usbreset v4l2-ctl

reset_cycle() {
	TRANSPORT=$1
	start_emu --transport="$TRANSPORT"
	plug
	pause_settings
	kmsg_mark "reset-idle-$TRANSPORT"
	usb_reset "$TRANSPORT-idle"
	subtest "$TRANSPORT: a reset while idle keeps the node and the settings" \
		same_node_and_settings "reset-idle-$TRANSPORT"
	subtest "$TRANSPORT: after a reset while idle, the camera streams" streams_after

	pause_capture_start "$TRANSPORT"
	usb_reset "$TRANSPORT-streaming"
	subtest "$TRANSPORT: a capture goes on across a reset" capture_goes_on "$TRANSPORT"
	subtest "$TRANSPORT: no error line from the resets" no_error_lines "reset-idle-$TRANSPORT"
	unplug
	stop_emu
}

bridge_was_reset() {
	wait_for "file_has '$CAMERA_EMU_LOG' 'configured again \\(a reset\\)'" 20 \
		"the camera to be reset"
	dmesg | kmsg_after_mark wedge | grep 'timed out after .* ms; resetting the bridge' >/dev/null ||
		fail "no 'resetting the bridge' in the kernel log"
}

# (while the capture runs, so that the sensor writes it at once)
control_lands_after() {
	local before
	before=$(grep -c 'i2c 0x3c write reg 0x5000 = ' "$CAMERA_EMU_LOG" || true)
	kill -0 "$SPID" 2>/dev/null || fail "the capture ended too soon for this check"
	v4l2-ctl -d "$NODE" -c brightness=90 || fail "a control write after the reset failed"
	[ "$(grep -c 'i2c 0x3c write reg 0x5000 = ' "$CAMERA_EMU_LOG")" -gt "$before" ] ||
		fail "the brightness write did not reach the camera"
}

capture_outlives_the_wedge() {
	local r
	wait_for "! kill -0 $SPID 2>/dev/null" 60 "the capture across the wedge to end"
	r=$(cat "$RESULTS/stream-wedge.log")
	log "the capture across the wedge and the reset: $r"
	[[ $r == *end=count* && $r =~ good=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 899 ] ||
		fail "the capture across the wedge: $r"
}

wedge_recovered() {
	start_emu -v --hostile=vendor-wedge --hostile-on=signal
	plug
	"$STREAM" -n 900 -t 20000 "$NODE" >"$RESULTS/stream-wedge.log" 2>&1 &
	SPID=$!
	camera_track "$SPID"
	wait_for '[ "$(cam_stat frames 0)" -gt 10 ]' 30 "the stream to run"
	kill -USR2 "$EMU_PID"
	wait_for "file_has '$CAMERA_EMU_LOG' 'hostile vendor-wedge armed'" 10 "the emulator to arm"
	kmsg_mark wedge
	# times out: the bridge no longer answers
	! v4l2-ctl -d "$NODE" -c brightness=70 2>"$RESULTS/ctrl-wedged.log" ||
		fail "a control write succeeded on a wedged bridge"
	subtest "a bridge that stopped answering is reset by the driver" bridge_was_reset
	subtest "after the reset, a control write lands" control_lands_after
	subtest "a capture goes on across the wedge and the reset" capture_outlives_the_wedge
	unplug
	stop_emu
}

driver_setup
stop_emu
reset_cycle iso
reset_cycle bulk
wedge_recovered
subtests_done
unload_isocam_modules
modprobe -r vhci-hcd
log "69-driver-reset: ok"
