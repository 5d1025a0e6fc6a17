#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench, issue 14): what the camera delivers through the
# driver, in frames and megabytes a second of guest time, for 1280x960
# MJPEG at 30 fps beside the reference, 640x480 YUYV at 30 fps, in the
# same boot, and their ratio; and 1280x960 YUYV at the fastest rate the
# link carries it. Frames per run: $ISOCAM_BUILD/bench/tp-frames
# (make bench BENCH_TP_FRAMES=N), else 300. Prints lines starting "bench:";
# asserts nothing about speed.
# vm-timeout: 1800
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"

require_cmd v4l2-ctl awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
FRAMES=300
[ ! -r "$ISOCAM_BUILD/bench/tp-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/tp-frames")

camera_start
NODE=$CAMERA_VIDEO
driver_debugfs

# rate FOURCC W H FPS: stream FRAMES frames; prints "fps MBps bytes_per_frame"
# from the dequeue times of the first and last buffers (isocam-stream -T).
rate() {
	local t=$RESULTS/tp-$1-$2x$3.txt r
	v4l2-ctl -d "$NODE" -v "width=$2,height=$3,pixelformat=$1" || fail "set-fmt $1 $2x$3"
	v4l2-ctl -d "$NODE" -p "$4" >/dev/null || fail "set-parm $4"
	# Warm up (TCG translates the paths once), unmeasured.
	"$STREAM" -b 8 -n 30 -t 10000 "$NODE" >/dev/null || fail "$1 $2x$3 warm-up"
	r=$("$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$t" "$NODE") || fail "isocam-stream: $r"
	assert_match "$r" 'end=count' "the $1 $2x$3 stream"
	awk 'NR == 1 { t0 = $3 } NR > 1 { b += $4 } { t = $3; n = NR }
		END {
			s = (t - t0) / 1e9
			printf "%.2f %.2f %d\n", (n - 1) / s, b / s / 1e6, b / (n - 1)
		}' "$t"
}

read -r fps_y mbs_y bpf_y <<<"$(rate YUYV 640 480 30)"
echo "bench: throughput 640x480 YUYV @30 (reference): $fps_y fps, $mbs_y MB/s, $bpf_y bytes a frame"
# What the raw format makes of the same size: its fastest offered rate.
fast=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=1280,height=960,pixelformat=YUYV |
	sed -n 's/.*(\([0-9]*\)\.[0-9]* fps).*/\1/p' | head -n 1)
[ -n "$fast" ] || fail "no frame rate for 1280x960 YUYV"
read -r fps_r mbs_r bpf_r <<<"$(rate YUYV 1280 960 "$fast")"
echo "bench: throughput 1280x960 YUYV @$fast (its fastest over the link): $fps_r fps, $mbs_r MB/s, $bpf_r bytes a frame"
read -r fps_m mbs_m bpf_m <<<"$(rate MJPG 1280 960 30)"
echo "bench: throughput 1280x960 MJPEG @30: $fps_m fps, $mbs_m MB/s, $bpf_m bytes a frame"
echo "bench: throughput MJPEG 1280x960 / YUYV 640x480: fps $(awk -v a="$fps_m" -v b="$fps_y" 'BEGIN { printf "%.2f", a / b }')x, pixels a second $(awk -v a="$fps_m" -v b="$fps_y" 'BEGIN { printf "%.2f", 4 * a / b }')x, bus MB/s $(awk -v a="$mbs_m" -v b="$mbs_y" 'BEGIN { printf "%.2f", a / b }')x"
cat "$DBG/stats" >"$RESULTS/stats.txt"
