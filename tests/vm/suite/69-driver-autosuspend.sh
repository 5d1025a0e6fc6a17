#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runtime autosuspend (uvcvideo's rule), with the camera's USB device set
# to power/control=auto as a laptop's power tools do:
#  - with no handle open and nothing streaming the camera suspends after
#    the autosuspend delay (the USB device's power/runtime_status: its
#    interface may be idle whenever nobody uses it, the device suspends
#    only with power/control=auto);
#  - an open video handle wakes it and keeps it awake until closed;
#  - a capture from a suspended camera streams good frames, and the
#    camera suspends again after it;
#  - a /dev/i2c-N transfer wakes it for the transfer (the sensor answers);
#  - the format set before a suspend is still set after it;
#  - with power/control=on (the kernel's default) it never suspends.
# Over USB/IP vhci_hcd suspends the port itself: the camera sees nothing.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip v4l2-ctl i2ctransfer
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

status() { cat "$USBDEV/power/runtime_status"; }
suspended() { [ "$(status)" = suspended ]; }

modprobe i2c-dev
camera_start
driver_debugfs
USBDEV=$(find_usb_dev)
I2C=$(cam_i2c_node) || fail "no i2c-dev node under $INTF"
v4l2-ctl -d "$NODE" -v width=320,height=240,pixelformat=GREY >/dev/null ||
	fail "cannot set the format"

never_by_default() {
	assert_eq "$(cat "$USBDEV/power/control")" on "power/control by default"
	sleep 1
	assert_eq "$(status)" active "runtime_status with power/control=on"
}
subtest "with the kernel's default power/control=on the camera stays awake" never_by_default

echo 200 >"$USBDEV/power/autosuspend_delay_ms"
echo auto >"$USBDEV/power/control"

idle_suspends() {
	wait_for suspended 10 "the idle camera to suspend"
}
subtest "an idle camera suspends" idle_suspends

open_keeps_awake() {
	exec 3<"$NODE"
	wait_for '[ "$(status)" = active ]' 5 "an open handle to wake the camera"
	sleep 1
	assert_eq "$(status)" active "runtime_status with a handle open for 1 s"
	exec 3<&-
	wait_for suspended 10 "the camera to suspend once the handle closed"
}
subtest "an open handle keeps the camera awake until it closes" open_keeps_awake

capture_from_suspended() {
	local r
	wait_for suspended 10 "the camera to suspend"
	r=$("$STREAM" -n 20 -t 10000 "$NODE" 2>&1) || fail "capture: $r"
	[[ $r == *good=20* && $r == *end=count* ]] || fail "capture from a suspended camera: $r"
	wait_for suspended 10 "the camera to suspend after the capture"
}
subtest "a suspended camera streams, then suspends again" capture_from_suspended

i2c_wakes() {
	local id
	wait_for suspended 10 "the camera to suspend"
	id=$(i2ctransfer -f -y "${I2C#/dev/i2c-}" w2@0x3c 0x00 0x00 r2) ||
		fail "i2c transfer to a suspended camera failed"
	assert_eq "$id" "0x12 0x80" "chip id read while the camera was suspended"
	wait_for suspended 10 "the camera to suspend after the transfer"
}
subtest "an i2c transfer wakes a suspended camera" i2c_wakes

format_survives() {
	wait_for suspended 10 "the camera to suspend"
	assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" \
		"Width/Height[[:space:]]*: 320/240" "the size after a suspend"
	assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" \
		"Pixel Format[[:space:]]*: 'GREY'" "the format after a suspend"
}
subtest "the format set before a suspend is kept" format_survives

echo on >"$USBDEV/power/control"
subtests_done
camera_stop
unload_isocam_modules
log "69-driver-autosuspend: ok"
