#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unplug while streaming: usbip detach in the middle
# of a capture, 20 times in a row, cycling through MMAP, USERPTR and
# read(). Each time the capture ends with an error within 5 s, the video
# node, the adapter and the debugfs directory go away and the next attach
# works; afterwards rmmod is clean. The harness fails the script on any
# kernel warning, oops or lockdep report in between.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl dd

driver_setup

step "unplug while streaming, 20 times"
modes=(--stream-mmap --stream-user --read)
for i in $(seq 1 20); do
	plug
	mode=${modes[$((i % 3))]}
	if [ "$mode" = --read ]; then
		dd if="$NODE" of=/dev/null bs=614400 2>"$RESULTS/cycle-$i.log" &
	else
		v4l2-ctl -d "$NODE" "$mode" --stream-count=1000000 >"$RESULTS/cycle-$i.log" 2>&1 &
	fi
	BG_PID=$!
	camera_track "$BG_PID"
	# Unplug at a different point of a frame each time.
	wait_for '[ "$(cam_stat frames 0)" -ge 3 ]' 30 "cycle $i: frames"
	sleep "0.$((i * 37 % 10))"
	frames=$(cam_stat frames 0)
	unplug
	wait_for "! kill -0 $BG_PID 2>/dev/null" 5 "cycle $i: the capture ($mode) to end after unplug"
	st=0
	wait "$BG_PID" || st=$?
	BG_PID=
	log "cycle $i: $mode, $frames frames, capture exit status $st"
	if [ "$mode" = --read ]; then
		assert_ne "$st" 0 "cycle $i: dd's exit status after unplug"
	fi
done

step "clean rmmod"
stop_emu
unload_isocam_modules
modprobe -r vhci-hcd
log "60-driver-unplug-stream: ok"
