#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): 1, 2, 4 and 8 cameras streaming
# 320x240 YUYV at 30 fps at once, from one isocam-emu --count 8 through
# vhci's eight high-speed ports. For each camera count: frames each
# camera delivered and lost (sequence gaps seen by the application, the
# driver's dropped and error frames, frames the camera captured but could
# not send), the MB/s they moved together, and the emulator's CPU per
# camera and per MB. The one-camera run is the reference.
# Frames per camera: $ISOCAM_BUILD/bench/cam-frames, else 150.
# Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 3600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip v4l2-ctl awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
FRAMES=150
[ ! -r "$ISOCAM_BUILD/bench/cam-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/cam-frames")
MAX=8
FRAME_BYTES=$((320 * 240 * 2))
HZ=$(getconf CLK_TCK)

# stat_of INTF KEY: a counter from that camera's debugfs stats.
stat_of() {
	awk -v k="$2:" '$1 == k { print $2 }' "/sys/kernel/debug/usb/isocam-${1##*/}/stats"
}

emu_cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$EMU_PID/stat"
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
load_isocam_modules
start_emu --count "$MAX"
NODES=()
INTFS=()
step "attach $MAX cameras"
for i in $(seq 1 "$MAX"); do
	attach_camera "1-$i"
	wait_for "camera_video_node 1-$i >/dev/null" 30 "camera 1-$i's video node"
	node=$(camera_video_node "1-$i")
	wait_for "[ -c $node ]" 10 "$node"
	dev=$(find_usb_dev "1-$i")
	NODES+=("$node")
	INTFS+=("$dev/${dev##*/}:1.0")
	v4l2-ctl -d "$node" -v width=320,height=240,pixelformat=YUYV -p 30 >/dev/null ||
		fail "$node: 320x240 YUYV at 30 fps"
	# TCG translates each path once: warm up, unmeasured.
	"$STREAM" -b 8 -n 10 -t 10000 "$node" >/dev/null || fail "$node warm-up"
done

ref_cpu=
for n in 1 2 4 8; do
	step "$n camera(s) at once, $FRAMES frames each"
	declare -a drop0=() err0=() emu0=()
	for i in $(seq 0 $((n - 1))); do
		drop0[i]=$(stat_of "${INTFS[$i]}" dropped_frames)
		err0[i]=$(stat_of "${INTFS[$i]}" error_frames)
		emu0[i]=$(emu_frames_dropped "1-$((i + 1))")
	done
	cpu0=$(emu_cpu_ticks)
	t0=$(date +%s%N)
	pids=()
	for i in $(seq 0 $((n - 1))); do
		"$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$RESULTS/cams$n-$i.txt" \
			"${NODES[$i]}" >"$RESULTS/cams$n-$i.out" &
		pids+=($!)
		camera_track $!
	done
	for i in $(seq 0 $((n - 1))); do
		wait "${pids[$i]}" || fail "isocam-stream on ${NODES[$i]}: $(cat "$RESULTS/cams$n-$i.out")"
	done
	t1=$(date +%s%N)
	cpu1=$(emu_cpu_ticks)
	worst=0
	lost_total=0
	line=
	for i in $(seq 0 $((n - 1))); do
		r=$(cat "$RESULTS/cams$n-$i.out")
		assert_match "$r" 'end=count' "${NODES[$i]}'s stream"
		missing=$(field missing "$r")
		drv_drop=$(($(stat_of "${INTFS[$i]}" dropped_frames) - drop0[i]))
		drv_err=$(($(stat_of "${INTFS[$i]}" error_frames) - err0[i]))
		emu_drop=$(($(emu_frames_dropped "1-$((i + 1))") - emu0[i]))
		lost=$((missing + drv_err))
		lost_total=$((lost_total + lost))
		[ "$lost" -le "$worst" ] || worst=$lost
		line+=" cam$((i + 1)):${missing}/${drv_drop}/${drv_err}/${emu_drop}"
	done
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	mb=$(awk -v n="$n" -v f="$FRAMES" -v b="$FRAME_BYTES" 'BEGIN { printf "%.1f", n * f * b / 1e6 }')
	cpu=$(awk -v t="$((cpu1 - cpu0))" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')
	[ -n "$ref_cpu" ] || ref_cpu=$(awk -v c="$cpu" -v n=1 'BEGIN { print c / n }')
	echo "bench: cameras $n x 320x240 YUYV @30: $FRAMES frames each in $secs s, $(awk -v m="$mb" -v s="$secs" 'BEGIN { printf "%.2f", m / s }') MB/s together; lost per camera (sequence gaps/driver dropped/driver error/camera could not send):$line; worst camera $worst lost"
	echo "bench: cameras $n: emulator CPU $cpu s, $(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.3f", c / n }') s a camera ($(awk -v c="$cpu" -v n="$n" -v r="$ref_cpu" 'BEGIN { printf "%.2f", (r > 0 ? c / n / r : 0) }')x one camera's), $(awk -v c="$cpu" -v m="$mb" 'BEGIN { printf "%.1f", c * 1000 / m }') ms a MB"
done
camera_stop
