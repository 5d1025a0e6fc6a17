#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bridge that stops answering the standard requests that start and stop
# a stream (SET_INTERFACE; CLEAR_FEATURE(ENDPOINT_HALT) for bulk, which
# has no alt to select) costs one of the USB core's 5 s timeouts, not one
# per request: isocam then gives up on the bridge, so the next STREAMON,
# i2c transfer and the unplug fail or finish at once. Without that, every
# STREAMON waited 10 s (its alt, then alt 0 again) and every STREAMOFF and
# close 5 s, all under the lock the unplug waits for.
# The fault matrix (62-driver-fault-control) runs the same modes in every
# state, and the one that ignores unlinks too where vhci_hcd can bound it.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip i2ctransfer
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

GAVE_UP='timed out; no more requests until it is plugged again'

# silent_bridge TRANSPORT WHAT: plug a camera that stops answering WHAT
# once armed; one stream meets the timeout, then nothing waits again.
silent_bridge() {
	local transport=$1 what=$2 t0 r secs
	start_emu --transport="$transport" --hostile=std-never --hostile-on=signal
	plug
	kill -USR2 "$EMU_PID"
	wait_for "file_has '$CAMERA_EMU_LOG' 'hostile std-never armed'" 10 "the emulator to arm"
	kmsg_mark "silent-$transport"

	t0=$SECONDS
	r=$(timeout 60 "$STREAM" -n 5 -t 10000 "$NODE" 2>&1) || true
	log "$transport: the stream that met the silent bridge ($((SECONDS - t0)) s): $r"
	t0=$SECONDS
	r=$(timeout 60 "$STREAM" -n 5 -t 10000 "$NODE" 2>&1) || true
	secs=$((SECONDS - t0))
	log "$transport: the next stream ($secs s): $r"
	[[ $r == *end=streamon* ]] || fail "$transport: a stream started on a bridge isocam gave up on: $r"
	assert_le "$secs" 2 "$transport: seconds for a STREAMON on a bridge isocam gave up on"

	# (A control write while idle only sets the sensor's value: the bus
	# sees it at the next stream start.)
	I2C=$(cam_i2c_node) || fail "no i2c-dev node under $INTF"
	t0=$SECONDS
	if i2ctransfer -f -y "${I2C#/dev/i2c-}" w2@0x3c 0x00 0x00 r2 >/dev/null 2>&1; then
		fail "$transport: an i2c transfer succeeded on a bridge isocam gave up on"
	fi
	assert_le $((SECONDS - t0)) 2 "$transport: seconds for an i2c transfer on a bridge isocam gave up on"
	dmesg | kmsg_after_mark "silent-$transport" | grep -qF "$what $GAVE_UP" ||
		fail "$transport: no '$what $GAVE_UP' in the kernel log"

	t0=$SECONDS
	unplug
	assert_le $((SECONDS - t0)) 5 "$transport: seconds for the unplug"
	stop_emu
}

modprobe i2c-dev
driver_setup
stop_emu

step "isochronous: SET_INTERFACE unanswered"
silent_bridge iso SET_INTERFACE

step "bulk: CLEAR_FEATURE(ENDPOINT_HALT) unanswered"
silent_bridge bulk 'CLEAR_FEATURE(ENDPOINT_HALT)'

step "clean rmmod"
unload_isocam_modules
modprobe -r vhci-hcd
log "63-driver-silent-bridge: ok"
