# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A camera's stream paused and going on (a USB reset, a system sleep):
# the pauses themselves, and the checks that the node and the settings
# survive, a capture across the pause goes on, no error line. PAUSE names
# the pause in messages ("the reset"). Source after lib/driver.sh.
PAUSE=${PAUSE:-the pause}
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

# camera_usbreset: a USB reset of the camera (usbreset, USBDEVFS_RESET),
# within 30 s; usbreset's words on stdout and stderr, its status.
camera_usbreset() {
	local dev
	dev=$(find_usb_dev) || { echo "no camera on the bus"; return 1; }
	timeout 30 usbreset "$(<"$dev/idVendor"):$(<"$dev/idProduct")"
}

# camera_usbsleep: the camera's USB device (and its bus) sleeps 300 ms and
# wakes, through the USB core's system-sleep callbacks (usb_sleep_setup
# first); its status.
camera_usbsleep() {
	local dev
	dev=$(find_usb_dev) || { echo "no camera on the bus" >&2; return 1; }
	echo "${dev##*/} 300" >/sys/kernel/debug/isocam_usbsleep/sleep
}

# usb_reset NAME: camera_usbreset, its output in $RESULTS/usbreset-NAME.log;
# fails the script if it failed.
usb_reset() {
	camera_usbreset >"$RESULTS/usbreset-$1.log" 2>&1 ||
		fail "usbreset: $(cat "$RESULTS/usbreset-$1.log")"
}

# usb_sleep_setup: the test module camera_usbsleep needs (tests/vm/kmods).
usb_sleep_setup() {
	module_loaded isocam_usbsleep || modprobe isocam_usbsleep ||
		fail "modprobe isocam_usbsleep (tests/vm/kmods)"
	is_mounted /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
}

# usb_sleep: camera_usbsleep; fails the script if it failed.
usb_sleep() {
	camera_usbsleep || fail "the camera's device did not sleep and wake"
}

# pause_settings: what the checks expect to survive: 320x240 YUYV at
# 15 fps, brightness 80.
pause_settings() {
	v4l2-ctl -d "$NODE" -v width=320,height=240,pixelformat=YUYV -p 15 \
		-c brightness=80 >/dev/null || fail "cannot set the format and brightness"
}

# same_node_and_settings MARK: bound to the same interface, the same node,
# pause_settings still set, and no unplug or probe since kmsg_mark MARK.
same_node_and_settings() {
	assert_eq "$(cam_intf)" "$INTF" "the interface isocam is bound to"
	assert_eq "$(cam_node)" "$NODE" "the video node"
	assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" \
		"Width/Height[[:space:]]*: 320/240" "the size after $PAUSE"
	assert_match "$(v4l2-ctl -d "$NODE" -P)" "Frames per second: 15.000" \
		"the rate after $PAUSE"
	assert_eq "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 80" \
		"brightness after $PAUSE"
	! dmesg | kmsg_after_mark "$1" |
		grep -E 'USB disconnect|isocam .*isocam IC1280 USB camera:' >/dev/null ||
		fail "the camera was unplugged or probed again by $PAUSE"
}

streams_after() {
	local r
	r=$("$STREAM" -n 15 -t 10000 "$NODE" 2>&1) || fail "capture after $PAUSE: $r"
	[[ $r == *good=15* && $r == *end=count* ]] || fail "capture after $PAUSE: $r"
}

# pause_capture_start NAME: a 60-frame capture in the background, running;
# sets SPID (its summary goes to $RESULTS/stream-NAME.log).
pause_capture_start() {
	"$STREAM" -n 60 -t 10000 "$NODE" >"$RESULTS/stream-$1.log" 2>&1 &
	SPID=$!
	camera_track "$SPID"
	wait_for '[ "$(cam_stat frames 0)" -gt 10 ]' 30 "the stream to run"
}

# capture_goes_on NAME: the capture of pause_capture_start NAME ends with
# its 60 frames (the one the pause cut short may come flagged ERROR), its
# sequence numbers skipping the frames the pause cost, and brightness
# still 80.
capture_goes_on() {
	local r
	wait_for "! kill -0 $SPID 2>/dev/null" 60 "the capture across $PAUSE to end"
	r=$(cat "$RESULTS/stream-$1.log")
	log "$1: the capture across $PAUSE: $r"
	[[ $r == *end=count* && $r =~ good=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 59 ] ||
		fail "the capture across $PAUSE: $r"
	[[ $r =~ gaps=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 1 ] ||
		fail "no sequence gap for the frames $PAUSE cost: $r"
	assert_eq "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 80" \
		"brightness after $PAUSE"
}

# no_error_lines MARK: no isocam error line since kmsg_mark MARK.
no_error_lines() {
	local bad
	bad=$(dmesg | kmsg_after_mark "$1" |
		grep -E 'isocam .*(error|failed|cannot|stopped)' || true)
	[ -z "$bad" ] || fail "error lines: $bad"
}
