#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unplug while ffmpeg streams, 20 times. Each time
# ffmpeg reports the error within 2 s of the unplug (the kernel's "USB
# disconnect" line) and has exited within 10 s: its log says "No such
# device" (the driver's ENODEV), the camera's nodes go away and the next
# attach works. The two clocks are apart because on the debug kernel
# (KASAN, lockdep, kmemleak under TCG) the driver's part is small and
# process start and exit are not: measured there, `usbip detach` took
# 0.8 s to reach the disconnect, the disconnect 0.1 s, ffmpeg released
# the device 0.4 s later and its process took 1.4 s more to exit. ffmpeg's own exit status for an input error is
# its choice: by default it ends the input as if at its end and exits 0;
# with -xerror it exits non-zero. Every other cycle runs with -xerror and
# must exit non-zero. The harness
# fails the script on any kernel warning, oops or lockdep report, and on
# a module that will not unload afterwards.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ffmpeg usbip

driver_setup

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

# kmsg_ms TEXT: the kernel log time, in ms, of the first line from the
# current cycle's marker on that contains TEXT (awk: no regex from TEXT).
kmsg_ms() {
	dmesg | kmsg_after_mark "85: cycle $i: unplug" |
		awk -v t="$1" 'index($0, t) { s = $0; sub(/^\[ */, "", s); sub(/\].*/, "", s); printf "%d\n", s * 1000; exit }'
}

CYCLES=20
worst=0
worst_exit=0
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
	kmsg_mark "85: cycle $i: unplug"
	t0=$(now_ms)
	usbip detach -p 0 >/dev/null || fail "cycle $i: usbip detach failed"
	detach_ms=$(($(now_ms) - t0))
	# (file_has and nap are builtins: this polls every 50 ms, and a fork
	# and an exec under TCG cost more than that.)
	while ! file_has "$flog" 'No such device'; do
		[ $(($(now_ms) - t0)) -lt 10000 ] ||
			fail "cycle $i: no error from ffmpeg 10 s after usbip detach: $(cat "$flog")"
		nap 0.05
	done
	kmsg_mark "85: cycle $i: ffmpeg reported the error"
	while kill -0 "$FF_PID" 2>/dev/null; do
		[ $(($(now_ms) - t0)) -lt 10000 ] || fail "cycle $i: ffmpeg still runs 10 s after usbip detach"
		nap 0.05
	done
	exit_ms=$(($(now_ms) - t0))
	gone=$(kmsg_ms 'USB disconnect')
	told=$(kmsg_ms "85: cycle $i: ffmpeg reported the error")
	if [ -z "$gone" ] || [ -z "$told" ]; then
		fail "cycle $i: no 'USB disconnect' or marker line in the kernel log"
	fi
	ms=$((told - gone))
	[ "$ms" -le 2000 ] || fail "cycle $i: ffmpeg reported the error $ms ms after the unplug"
	[ "$ms" -le "$worst" ] || worst=$ms
	[ "$exit_ms" -le "$worst_exit" ] || worst_exit=$exit_ms
	st=0
	wait "$FF_PID" || st=$?
	FF_PID=
	why=$(grep -m1 'No such device' "$flog" || true)
	log "cycle $i: $pixfmt $size ${xerror[*]}, $frames frames; usbip detach took $detach_ms ms; ffmpeg reported the error $ms ms after the unplug and had exited $exit_ms ms after usbip detach began, status $st: $why"
	[ -n "$why" ] || fail "cycle $i: ffmpeg's log does not say 'No such device': $(cat "$flog")"
	[ ${#xerror[@]} = 0 ] || assert_ne "$st" 0 "cycle $i: ffmpeg -xerror's exit status after the unplug"
	wait_for no_isocam_left 20 "cycle $i: the driver's sysfs and debugfs entries to go"
	[ ! -e "/sys/class/video4linux/${NODE#/dev/}" ] || fail "cycle $i: $NODE is still registered"
done
log "$CYCLES unplugs: ffmpeg reported the error at most $worst ms after the unplug, and had exited at most $worst_exit ms after usbip detach began"

step "the camera works after the last unplug"
plug
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=10 --stream-to=/dev/null >/dev/null 2>&1 ||
	fail "streaming after $CYCLES unplugs failed"
unplug
stop_emu
