#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: unplug while streaming, over and over. Each cycle
# plugs the camera, streams, unplugs it after a varying 0.2-0.9 s and
# checks that the stream ended with ENODEV (never a stall) and that the
# unplug finished; the harness fails the run on any kernel warning, oops
# or lockdep report in between, and every 50 cycles this checks too. The
# count comes from $ISOCAM_BUILD/soak/cycles (make soak SOAK_CYCLES=N;
# default 1000).
# vm-timeout: 14400
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip timeout
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
CYCLES=1000
[ ! -r "$ISOCAM_BUILD/soak/cycles" ] || CYCLES=$(cat "$ISOCAM_BUILD/soak/cycles")
BAD_RE=$ISOCAM_ROOT/tests/vm/harness/kernel-bad.re

driver_setup
start=$SECONDS
frames=0
for i in $(seq "$CYCLES"); do
	plug
	timeout 60 "$STREAM" -n 100000 -t 10000 "$NODE" >/tmp/soak-stream.txt 2>&1 &
	pid=$!
	sleep "0.$((2 + i % 7))$((i % 10))"
	kill -0 "$pid" 2>/dev/null || fail "cycle $i: the stream ended before the unplug: $(cat /tmp/soak-stream.txt)"
	unplug
	wait "$pid" || fail "cycle $i: isocam-stream: $(cat /tmp/soak-stream.txt)"
	r=$(cat /tmp/soak-stream.txt)
	[[ "$r" == *errno=ENODEV* ]] || fail "cycle $i: the stream did not end with ENODEV: $r"
	n=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' <<<"$r")
	frames=$((frames + n))
	[ $((i % 50)) = 0 ] || continue
	splat=$(dmesg | grep -m1 -F -f "$BAD_RE") || true
	[ -z "$splat" ] || fail "by cycle $i: kernel: $splat"
	log "soak: $i cycles, $frames frames, $((SECONDS - start)) s"
done
stop_emu
unload_isocam_modules
log "soak: $CYCLES unplug-while-streaming cycles in $((SECONDS - start)) s, $frames frames, kernel log clean, rmmod clean"
