#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unbinding isocam from a camera that is still plugged in (sysfs unbind;
# the USB core does the same before a reset or a system sleep the driver
# cannot follow) while it streams, for each transport:
#  - the sensor is put in standby (MODE_SELECT 0 over i2c) and an iso
#    camera's interface goes back to alt 0: the device is still there and
#    must stop sending;
#  - no error line: the URBs the USB core ends meanwhile are not "resubmit
#    failed" and the stream is not reported stalled;
#  - the streaming handle, held open by a process that does not react
#    (holder.py stream: the one that would close at once on an error and
#    stop the stream itself), finds DQBUF failing;
#  - bound again, the camera streams good frames.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
DRV=/sys/bus/usb/drivers/isocam
STANDBY=$(printf 'i2c 0x3c write reg 0x0100 = 0x%02x' 0)

# The emulator's log from line $EMU_MARK on.
emu_since() { tail -n +"$EMU_MARK" "$CAMERA_EMU_LOG"; }

standby_written() {
	wait_for "emu_since | grep -F '$STANDBY' >/dev/null" 5 "'$STANDBY' in the emulator log"
}

alt0_selected() {
	wait_for "emu_since | grep ': alt setting 0 ' >/dev/null" 5 "the camera to see alt 0"
}

no_error_lines() {
	local bad
	bad=$(dmesg | kmsg_after_mark "unbind-$TRANSPORT" |
		grep -E 'isocam .*(resubmit failed|stream stopped|cannot|failed)' || true)
	[ -z "$bad" ] || fail "error lines after the unbind: $bad"
}

holder_sees_the_end() {
	local out
	out=$(cat "$RESULTS/holder-stream.log")
	log "$out"
	[ "$HOLDER_STATUS" = 0 ] || fail "the stream holder saw something wrong: $out"
	[[ $out == *"DQBUF failed with ENODEV"* ]] || fail "after the unbind: $out"
}

rebound_streams() {
	local r
	echo "$INTF_NAME" >"$DRV/bind" || fail "bind $INTF_NAME"
	wait_for 'NODE=$(cam_node)' 30 "the video node after the bind"
	r=$("$STREAM" -n 10 -t 10000 "$NODE" 2>&1) || fail "capture after the bind: $r"
	[[ $r == *good=10* && $r == *end=count* ]] || fail "capture after the bind: $r"
}

unbind_while_streaming() {
	TRANSPORT=$1
	start_emu -v --transport="$TRANSPORT"
	plug
	INTF_NAME=${INTF##*/}
	hold stream "$NODE"
	wait_for '[ "$(cam_stat frames 0)" -gt 3 ]' 30 "the stream to run"
	EMU_MARK=$(($(wc -l <"$CAMERA_EMU_LOG") + 1))
	kmsg_mark "unbind-$TRANSPORT"
	echo "$INTF_NAME" >"$DRV/unbind" || fail "unbind $INTF_NAME"

	subtest "$TRANSPORT: unbind while streaming puts the sensor in standby" standby_written
	[ "$TRANSPORT" != iso ] ||
		subtest "iso: unbind while streaming returns the interface to alt 0" alt0_selected
	subtest "$TRANSPORT: no error line from the unbind" no_error_lines
	# (the holder is this shell's child: waited for here, not in a subtest)
	touch /tmp/go
	HOLDER_STATUS=0
	wait "$BG_PID" || HOLDER_STATUS=$?
	subtest "$TRANSPORT: the streaming handle finds DQBUF failing" holder_sees_the_end
	subtest "$TRANSPORT: bound again, the camera streams" rebound_streams
	unplug
	stop_emu
}

modprobe i2c-dev
driver_setup
stop_emu
unbind_while_streaming iso
unbind_while_streaming bulk
subtests_done
unload_isocam_modules
modprobe -r vhci-hcd
log "69-driver-unbind: ok"
