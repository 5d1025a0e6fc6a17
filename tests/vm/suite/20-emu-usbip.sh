#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The emulator over USB/IP, in the guest: isocam-emu serves cameras over USB/IP;
# `usbip list` shows them; after `usbip attach`, lsusb shows every alt
# setting with the wMaxPacketSize of include/isocam/usb.h; the libusb
# checker (no kernel driver bound) reads the chip ID by vendor requests
# and gets 300 frames by isochronous transfers, every counter once and in
# order, every checksum right; a refused import says why (busy, not
# found); detach frees the camera for a re-import.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"

require_cmd usbip lsusb awk

USB_H=$ISOCAM_ROOT/include/isocam/usb.h
CHECK=$ISOCAM_BUILD/isocam-usbcheck
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

# The wMaxPacketSize of alt 1..N as the contract encodes them:
# ISOCAM_USB_MAXP(mult, size) = (mult - 1) << 11 | size.
# (No process substitution: the guest has no /dev/fd.)
mapfile -t WMAXP <<<"$(sed -n '/ISOCAM_USB_ALT_WMAXP_INIT/,/^}/p' "$USB_H" |
	sed -n 's/.*ISOCAM_USB_MAXP(\([0-9]*\), *\([0-9]*\)).*/\1 \2/p' |
	while read -r m s; do printf '0x%04x\n' $(((m - 1) << 11 | s)); done)"
NUM_ALTS=$(awk '$2 == "ISOCAM_USB_NUM_ALTS" { print $3 }' "$USB_H")
assert_eq "${#WMAXP[@]}" $((NUM_ALTS - 1)) "alt settings with an endpoint in usb.h"

start_emu -v --count 2

# Each check is a KTAP subtest; the plugs and unplugs they look at
# happen between them.
usbip_list() {
	usbip --tcp-port "$EMU_PORT" list -r 127.0.0.1 | tee "$RESULTS/usbip-list.txt"
	grep -Eq "^ +1-1: .*\($CAMERA_VID:$CAMERA_PID\)" "$RESULTS/usbip-list.txt" ||
		fail "usbip list does not show camera 1-1 ($CAMERA_VID:$CAMERA_PID)"
	grep -Eq "^ +1-2: .*\($CAMERA_VID:$CAMERA_PID\)" "$RESULTS/usbip-list.txt" ||
		fail "usbip list does not show camera 1-2"
	grep -q '(ff/01/01)' "$RESULTS/usbip-list.txt" ||
		fail "usbip list does not show the vendor video interface ff/01/01"
}
subtest "usbip list shows both cameras and their vendor video interface" usbip_list

attached_device() {
	local dev iface
	dev=$(find_usb_dev 1-1)
	assert_eq "$(cat "$dev/speed")" 480 "the camera's speed (Mb/s)"
	assert_eq "$(cat "$dev/bNumConfigurations")" 1 "bNumConfigurations"
	assert_eq "$(cat "$dev/bConfigurationValue")" 1 "active configuration"
	iface=$dev/$(basename "$dev"):1.0
	[ ! -e "$iface/driver" ] ||
		fail "a kernel driver ($(basename "$(readlink -f "$iface/driver")")) is bound; this test needs none"
}

lsusb_alts() {
	local alts iso i
	lsusb -v -d "$CAMERA_VID:$CAMERA_PID" >"$RESULTS/lsusb-v.txt" 2>&1 || true
	grep -E 'bcdUSB|idVendor|idProduct|iProduct|bAlternateSetting|bEndpointAddress|Transfer Type|wMaxPacketSize' \
		"$RESULTS/lsusb-v.txt"
	grep -Eq 'bcdUSB +2\.00' "$RESULTS/lsusb-v.txt" || fail "lsusb: bcdUSB is not 2.00"
	grep -q 'isocam IC1280 USB camera' "$RESULTS/lsusb-v.txt" || fail "lsusb: product string missing"
	alts=$(grep -c 'bAlternateSetting' "$RESULTS/lsusb-v.txt" || true)
	assert_eq "$alts" "$NUM_ALTS" "alt settings listed by lsusb"
	mapfile -t GOT <<<"$(awk '/bAlternateSetting/ { alt = $2 } /wMaxPacketSize/ { print alt ":" $2 }' "$RESULTS/lsusb-v.txt")"
	assert_eq "${#GOT[@]}" "${#WMAXP[@]}" "endpoints listed by lsusb"
	for i in "${!WMAXP[@]}"; do
		assert_eq "${GOT[$i]}" "$((i + 1)):${WMAXP[$i]}" "alt $((i + 1)) wMaxPacketSize"
	done
	iso=$(grep -c 'Transfer Type *Isochronous' "$RESULTS/lsusb-v.txt" || true)
	assert_eq "$iso" "${#WMAXP[@]}" "isochronous endpoints"
}

usbcheck() {
	local lines_before
	lines_before=$(wc -l <"$CAMERA_EMU_LOG")
	run_logged usbcheck "$CHECK" --frames 300 --size 320x240 --format yuyv --fps 30 ||
		fail "isocam-usbcheck failed"
	grep -q '^sensor chip id: 0x1280$' "$RESULTS/usbcheck.log" || fail "usbcheck did not read chip id 0x1280"
	grep -q 'PASS: 300 frames' "$RESULTS/usbcheck.log" || fail "usbcheck did not pass 300 frames"
	# the emulator saw the mode reach the sensor (its -v register log)
	tail -n +"$((lines_before + 1))" "$CAMERA_EMU_LOG" >"$RESULTS/emu-during-usbcheck.log"
	grep -q 'cam0: i2c 0x3c write reg 0x0100 = 0x01' "$RESULTS/emu-during-usbcheck.log" ||
		fail "the emulator log lacks MODE_SELECT streaming"
	grep -q 'cam0: alt setting 7' "$RESULTS/emu-during-usbcheck.log" ||
		fail "the emulator log lacks the alt setting change"
	kill -USR1 "$EMU_PID"
	wait_for "grep -q 'cam0 1-1: client .*frames sent [1-9]' '$CAMERA_EMU_LOG'" 5 "a status line with frames sent"
	grep 'cam0 1-1: client' "$CAMERA_EMU_LOG" | tail -n 1
}

attach_camera 1-1
subtest "the attached camera: high speed, one configuration, no driver bound" attached_device
subtest "lsusb -v shows every alt setting with the contract's wMaxPacketSize" lsusb_alts
subtest "isocam-usbcheck reads the chip id and 300 frames over isochronous transfers" usbcheck

two_cameras() {
	assert_eq "$(usb_devs | wc -l)" 2 "cameras attached"
	lsusb -d "$CAMERA_VID:$CAMERA_PID"
}

# 1-1 is imported already; 1-9 does not exist.
refused_imports() {
	local out
	out=$(usbip --tcp-port "$EMU_PORT" attach -r 127.0.0.1 -b 1-1 2>&1) &&
		fail "a second import of 1-1 succeeded: $out"
	assert_match "$out" "Device busy" "usbip attach of a camera in use"
	out=$(usbip --tcp-port "$EMU_PORT" attach -r 127.0.0.1 -b 1-9 2>&1) &&
		fail "an import of 1-9 succeeded: $out"
	assert_match "$out" "Device not found" "usbip attach of an unknown bus id"
	assert_eq "$(usb_devs | wc -l)" 2 "cameras attached after the refusals"
}

attach_camera 1-2
subtest "the second camera is independent" two_cameras
subtest "refused imports say why (usbipd's codes)" refused_imports

reimported() {
	assert_eq "$(cat "$(find_usb_dev 1-1)/speed")" 480 "speed after re-import"
}

detach_camera
wait_for "grep -q 'cam0: session with .* ended' '$CAMERA_EMU_LOG'" 10 "the emulator to see the detach"
attach_camera 1-1
subtest "detached, the camera can be imported again" reimported
detach_camera

stopped_cleanly() {
	! grep -Eiq 'sanitizer|segfault|abort' "$CAMERA_EMU_LOG" || fail "the emulator log shows a crash"
}
stop_emu
subtest "the emulator stops cleanly" stopped_cleanly
subtests_done
log "20-emu-usbip: ok"
