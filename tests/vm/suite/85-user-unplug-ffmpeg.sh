#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 6, scenario 6: unplug while ffmpeg streams, 20 times. Each time
# ffmpeg ends with an error within 2 s of `usbip detach`: its log says
# "No such device" (the driver's ENODEV), the camera's nodes go away and
# the next attach works. ffmpeg's own exit status for an input error is
# its choice: by default it ends the input as if at its end and exits 0;
# with -xerror it exits non-zero. Every other cycle runs with -xerror and
# must exit non-zero. The harness
# fails the script on any kernel warning, oops or lockdep report, and on
# a module that will not unload afterwards.
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"

require_cmd ffmpeg usbip

driver_setup

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

CYCLES=20
worst=0
formats=("yuyv422 640x480" "gray 320x240" "rgb565le 320x240")
step "unplug while ffmpeg streams, $CYCLES times"
for i in $(seq 1 "$CYCLES"); do
	plug
	read -r pixfmt size <<<"${formats[$((i % 3))]}"
	flog=$RESULTS/ffmpeg-$i.log
	xerror=()
	[ $((i % 2)) = 1 ] || xerror=(-xerror)
	ffmpeg -hide_banner -nostdin -loglevel error "${xerror[@]}" -f v4l2 -input_format "$pixfmt" \
		-video_size "$size" -i "$NODE" -f rawvideo -y /dev/null 2>"$flog" &
	FF_PID=$!
	camera_track "$FF_PID"
	# Unplug at a different point of a frame each time.
	wait_for '[ "$(cam_stat frames 0)" -ge 5 ]' 30 "cycle $i: ffmpeg's frames"
	sleep "0.$((i * 37 % 10))"
	frames=$(cam_stat frames 0)
	t0=$(now_ms)
	usbip detach -p 0 >/dev/null || fail "cycle $i: usbip detach failed"
	while kill -0 "$FF_PID" 2>/dev/null; do
		[ $(($(now_ms) - t0)) -lt 2000 ] || fail "cycle $i: ffmpeg still runs 2 s after the unplug"
		sleep 0.05
	done
	ms=$(($(now_ms) - t0))
	[ "$ms" -le "$worst" ] || worst=$ms
	set +e
	wait "$FF_PID"
	st=$?
	set -e
	FF_PID=
	why=$(grep -m1 'No such device' "$flog" || true)
	log "cycle $i: $pixfmt $size ${xerror[*]}, $frames frames, ffmpeg ended in $ms ms, status $st: $why"
	[ -n "$why" ] || fail "cycle $i: ffmpeg's log does not say 'No such device': $(cat "$flog")"
	[ ${#xerror[@]} = 0 ] || assert_ne "$st" 0 "cycle $i: ffmpeg -xerror's exit status after the unplug"
	wait_for no_isocam_left 20 "cycle $i: the driver's sysfs and debugfs entries to go"
	[ ! -e "/sys/class/video4linux/${NODE#/dev/}" ] || fail "cycle $i: $NODE is still registered"
done
log "$CYCLES unplugs: ffmpeg ended at most $worst ms after usbip detach"

step "the camera works after the last unplug"
plug
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=10 --stream-to=/dev/null >/dev/null 2>&1 ||
	fail "streaming after $CYCLES unplugs failed"
unplug
stop_emu
