#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make pause-soak: a stream paused over and over. One capture runs while
# the camera's device sleeps (isocam_usbsleep, the USB core's system-sleep
# callbacks) and is reset (usbreset) in turn, CYCLES of each, half over
# each transport. After every pause the same capture must deliver new
# frames within 10 s, and at the end no frame may have been lost on the
# bus. The harness fails the run on any kernel warning
# or report in between, and every 20 cycles this checks too. The count
# comes from $ISOCAM_BUILD/soak/pause-cycles (make pause-soak
# PAUSE_CYCLES=N; default 100).
# vm-timeout: 14400
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/pause.sh"

require_cmd usbip usbreset
CYCLES=100
[ ! -r "$ISOCAM_BUILD/soak/pause-cycles" ] || CYCLES=$(cat "$ISOCAM_BUILD/soak/pause-cycles")
BAD_RE=$ISOCAM_ROOT/tests/vm/harness/kernel-bad.re

# frames_flow I WHAT: the capture still runs and delivers after pause I.
frames_flow() {
	local n0
	n0=$(cam_stat frames)
	kill -0 "$SPID" 2>/dev/null ||
		fail "cycle $1: the capture ended after $2: $(cat "$RESULTS/stream-soak.log")"
	wait_for "[ \$(cam_stat frames) -gt $((n0 + 2)) ]" 10 "cycle $1: frames after $2"
}

driver_setup
stop_emu
usb_sleep_setup
start=$SECONDS
sleeps=0 resets=0
for t in iso bulk; do
	start_emu --transport="$t"
	plug
	# 30 fps for as long as the cycles take, and then some
	"$STREAM" -n 1000000 -t 10000 "$NODE" >"$RESULTS/stream-soak.log" 2>&1 &
	SPID=$!
	camera_track "$SPID"
	wait_for '[ "$(cam_stat frames 0)" -gt 10 ]' 30 "the stream to run"
	for i in $(seq $((CYCLES / 2))); do
		usb_sleep
		sleeps=$((sleeps + 1))
		frames_flow "$t $i" "a sleep"
		usb_reset soak
		resets=$((resets + 1))
		frames_flow "$t $i" "a reset"
		[ $((i % 20)) = 0 ] || continue
		splat=$(dmesg | grep -m1 -E -f "$BAD_RE") || true
		[ -z "$splat" ] || fail "by $t cycle $i: kernel: $splat"
		log "pause soak: $t: $i cycles, $((SECONDS - start)) s"
	done
	kill -TERM "$SPID"
	wait "$SPID" || true
	log "pause soak: $t: $(cam_stat frames) frames"
	bus_clean "pause soak $t"
	unplug
	stop_emu
done
log "pause soak: $sleeps sleeps and $resets resets while streaming in $((SECONDS - start)) s of guest time"
unload_isocam_modules
