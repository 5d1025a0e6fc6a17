#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stress: start and stop the stream over and over. Every
# cycle opens the node, streams 3 frames and closes it (STREAMOFF with
# URBs in flight); every 10th has STREAMON fail halfway (debugfs
# sim_submit_fail_at: the Nth URB submit fails with -ENOMEM while the
# others are in flight); every 50th unplugs while the stream is being
# stopped, then plugs again. What must never happen: vhci dropping the
# connection (the camera vanishing outside an unplug; "cannot find a urb
# of seqnum", which is vhci giving up on a reply it did not expect), a
# stall, or a stop that loses the camera, or anything lost on the bus.
# The count is $STRESS_CYCLES if set (the suite's short run), else
# $ISOCAM_BUILD/stress/cycles (make stress STRESS_CYCLES=N), else 1000.
# vm-timeout: 14400
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip timeout
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
CYCLES=${STRESS_CYCLES:-1000}
[ -n "${STRESS_CYCLES:-}" ] || [ ! -r "$ISOCAM_BUILD/stress/cycles" ] ||
	CYCLES=$(cat "$ISOCAM_BUILD/stress/cycles")
# vhci's words for a connection it gave up on (drivers/usb/usbip/vhci_rx.c)
VHCI_DROP='cannot find a urb of seqnum|connection reset by peer|connection timed out with pending urbs|received pdu size is|unknown pdu|xmit failed'

driver_setup
# A reader of /dev/kmsg starts at the oldest record in the ring buffer, not
# at the last `dmesg -c`: what earlier scripts made vhci say (the fault
# matrix's vanishing camera: "connection reset by peer") is there too. So
# the run's window starts at a marker; a stale drop line written before it
# must not be charged to this run, and proves the window every time.
kmsg_mark "stress: a stale line before the run: vhci_hcd: connection reset by peer"
cat /dev/kmsg >/tmp/stress-kmsg &
camera_track $!
mark="stress: run $$ starts at $EPOCHREALTIME"
kmsg_mark "$mark"
wait_for "grep -F '$mark' /tmp/stress-kmsg >/dev/null" 10 "the stress marker in /dev/kmsg"
kmsg_lines=$(grep -n -m1 -F "$mark" /tmp/stress-kmsg | cut -d: -f1)
plug
start=$SECONDS
frames=0 failed_starts=0 unplugs=0

vhci_clean() { # vhci_clean CYCLE: no dropped connection since the last call
	local drop
	drop=$(tail -n +$((kmsg_lines + 1)) /tmp/stress-kmsg | grep -m1 -E "$VHCI_DROP") || true
	kmsg_lines=$(wc -l </tmp/stress-kmsg)
	[ -z "$drop" ] || fail "by cycle $1: vhci dropped the connection: ${drop#*;}"
}

bus_clean() { # bus_clean CYCLE: nothing lost on the bus in this plug
	local k
	for k in urb_errors bad_urbs resubmit_errors bad_packets stream_failures; do
		assert_eq "$(cam_stat $k)" 0 "by cycle $1: $k"
	done
}

for i in $(seq "$CYCLES"); do
	if [ $((i % 50)) = 25 ]; then
		# Unplug while the stream is being stopped: the close's STREAMOFF
		# waits for the URBs in flight while the port goes away.
		"$STREAM" -n 100000 -t 10000 "$NODE" >/tmp/stress-stream.txt 2>&1 &
		pid=$!
		sleep 0.5
		kill -0 "$pid" 2>/dev/null || fail "cycle $i: the stream ended early: $(cat /tmp/stress-stream.txt)"
		bus_clean "$i"
		kill -TERM "$pid"
		sleep "0.0$((i % 10))"
		unplug
		# SIGTERM ends it (143), or the unplug first: ENODEV, status 0.
		st=0
		wait "$pid" 2>/dev/null || st=$?
		[ "$st" = 0 ] || [ "$st" = 143 ] ||
			fail "cycle $i: the stream ended with status $st: $(cat /tmp/stress-stream.txt)"
		unplugs=$((unplugs + 1))
		vhci_clean "$i"
		plug
		continue
	fi
	if [ $((i % 10)) = 5 ]; then
		# STREAMON fails with URBs in flight; the camera must stay usable.
		n=$((2 + i % 30))
		echo "$n" >"$DBG/sim_submit_fail_at"
		r=$("$STREAM" -n 3 -t 10000 "$NODE" 2>&1)
		echo 0 >"$DBG/sim_submit_fail_at"
		[[ "$r" == *end=streamon*errno=ENOMEM* ]] ||
			fail "cycle $i: STREAMON with URB $n failing did not fail with ENOMEM: $r"
		failed_starts=$((failed_starts + 1))
	fi
	r=$(timeout 60 "$STREAM" -n 3 -t 10000 "$NODE" 2>&1) ||
		fail "cycle $i: isocam-stream: $r"
	[[ "$r" == *end=count* ]] || fail "cycle $i: the stream did not deliver 3 frames: $r"
	frames=$((frames + 3))
	[ -c "$NODE" ] || fail "cycle $i: $NODE is gone: the camera vanished"
	[ $((i % 10)) = 0 ] || continue
	vhci_clean "$i"
	[ $((i % 100)) = 0 ] &&
		log "stress: $i cycles ($failed_starts failed starts, $unplugs unplugs), $frames frames, $((SECONDS - start)) s"
done
vhci_clean "$CYCLES"
bus_clean "$CYCLES"
unplug
stop_emu
unload_isocam_modules
log "stress: $CYCLES start/stop cycles ($failed_starts STREAMON failing halfway, $unplugs unplugs during a stop) in $((SECONDS - start)) s, $frames frames, no vhci disconnect"
