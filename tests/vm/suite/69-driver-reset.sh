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
#  - no error line.
# Over USB/IP vhci_hcd resets the port itself; the camera sees the
# descriptors read again and its configuration and alt setting restored.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip usbreset v4l2-ctl
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

usb_reset() {
	local ids
	ids=$(<"$(find_usb_dev)/idVendor"):$(<"$(find_usb_dev)/idProduct")
	usbreset "$ids" >"$RESULTS/usbreset-$TRANSPORT-$1.log" 2>&1 ||
		fail "usbreset $ids: $(cat "$RESULTS/usbreset-$TRANSPORT-$1.log")"
}

same_node_and_settings() {
	assert_eq "$(cam_intf)" "$INTF" "the interface isocam is bound to"
	assert_eq "$(cam_node)" "$NODE" "the video node"
	assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" \
		"Width/Height[[:space:]]*: 320/240" "the size after the reset"
	assert_match "$(v4l2-ctl -d "$NODE" -P)" "Frames per second: 15.000" \
		"the rate after the reset"
	assert_eq "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 80" \
		"brightness after the reset"
	! dmesg | kmsg_after_mark "reset-idle-$TRANSPORT" |
		grep -E 'USB disconnect|isocam .*isocam IC1280 USB camera:' >/dev/null ||
		fail "the camera was unplugged or probed again by the reset"
}

streams_after() {
	local r
	r=$("$STREAM" -n 15 -t 10000 "$NODE" 2>&1) || fail "capture after the reset: $r"
	[[ $r == *good=15* && $r == *end=count* ]] || fail "capture after the reset: $r"
}

capture_goes_on() {
	local r
	wait_for "! kill -0 $SPID 2>/dev/null" 60 "the capture across the reset to end"
	r=$(cat "$RESULTS/stream-$TRANSPORT.log")
	log "$TRANSPORT: the capture across the reset: $r"
	# (the frame the reset cut short may come flagged ERROR)
	[[ $r == *end=count* && $r =~ good=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 59 ] ||
		fail "the capture across the reset: $r"
	[[ $r =~ gaps=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] ||
		fail "no sequence gap for the frames the reset cost: $r"
	assert_eq "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 80" \
		"brightness after the reset"
}

no_error_lines() {
	local bad
	bad=$(dmesg | kmsg_after_mark "reset-idle-$TRANSPORT" |
		grep -E 'isocam .*(error|failed|cannot|stopped)' || true)
	[ -z "$bad" ] || fail "error lines: $bad"
}

reset_cycle() {
	TRANSPORT=$1
	start_emu --transport="$TRANSPORT"
	plug
	v4l2-ctl -d "$NODE" -v width=320,height=240,pixelformat=YUYV -p 15 \
		-c brightness=80 >/dev/null || fail "cannot set the format and brightness"
	kmsg_mark "reset-idle-$TRANSPORT"
	usb_reset idle
	subtest "$TRANSPORT: a reset while idle keeps the node and the settings" same_node_and_settings
	subtest "$TRANSPORT: after a reset while idle, the camera streams" streams_after

	"$STREAM" -n 60 -t 10000 "$NODE" >"$RESULTS/stream-$TRANSPORT.log" 2>&1 &
	SPID=$!
	camera_track "$SPID"
	wait_for '[ "$(cam_stat frames 0)" -gt 10 ]' 30 "the stream to run"
	usb_reset streaming
	subtest "$TRANSPORT: a capture goes on across a reset" capture_goes_on
	subtest "$TRANSPORT: no error line from the resets" no_error_lines
	unplug
	stop_emu
}

driver_setup
stop_emu
reset_cycle iso
reset_cycle bulk
subtests_done
unload_isocam_modules
modprobe -r vhci-hcd
log "69-driver-reset: ok"
