#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): what the camera delivers through the
# driver, in frames and megabytes a second of guest time, for 1280x960
# MJPEG at 30 fps beside the reference, 640x480 YUYV at 30 fps, in the
# same boot, and their ratio; and 1280x960 YUYV at the fastest rate the
# link carries it. Then the highest frame rate at 320x240 YUYV, beside
# vivid's webcam at its fastest at 320x180 (its size nearest 320x240:
# vivid's webcam offers no 320x240) in the same boot. Frames per run: $ISOCAM_BUILD/bench/tp-frames
# (make bench BENCH_TP_FRAMES=N), else 300. Prints lines starting "bench:";
# asserts nothing about speed.
# vm-timeout: 1800
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
FRAMES=300
[ ! -r "$ISOCAM_BUILD/bench/tp-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/tp-frames")

camera_start
driver_debugfs

# rate FOURCC W H FPS [NODE]: stream FRAMES frames from NODE (default
# the camera); prints "fps MBps bytes_per_frame" from the dequeue times of
# the first and last buffers (isocam-stream -T).
rate() {
	local node=${5:-$NODE} t r
	t=$RESULTS/tp-$1-$2x$3-${node##*/}.txt
	v4l2-ctl -d "$node" -v "width=$2,height=$3,pixelformat=$1" || fail "set-fmt $1 $2x$3"
	v4l2-ctl -d "$node" -p "$4" >/dev/null || fail "set-parm $4"
	# Warm up (TCG translates the paths once), unmeasured.
	"$STREAM" -b 8 -n 30 -t 10000 "$node" >/dev/null || fail "$1 $2x$3 warm-up"
	r=$("$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$t" "$node") || fail "isocam-stream: $r"
	assert_match "$r" 'end=count' "the $1 $2x$3 stream"
	awk 'NR == 1 { t0 = $3 } NR > 1 { b += $4 } { t = $3; n = NR }
		END {
			s = (t - t0) / 1e9
			printf "%.2f %.2f %d\n", (n - 1) / s, b / s / 1e6, b / (n - 1)
		}' "$t"
}

u0=$(cam_stat urbs) n0=$(cam_stat urb_ns) b0=$(cam_stat bytes) i0=$(cam_stat urbs_irqs_off)
t0=$(date +%s%N)
read -r fps_y mbs_y bpf_y <<<"$(rate YUYV 640 480 30)"
t1=$(date +%s%N)
echo "bench: throughput 640x480 YUYV @30 (reference): $fps_y fps, $mbs_y MB/s, $bpf_y bytes a frame"
# The driver's own cost in that run (its warm-up included): the
# completion handler's packet work, per URB and per byte copied.
urbs=$(($(cam_stat urbs) - u0)) ns=$(($(cam_stat urb_ns) - n0))
bytes=$(($(cam_stat bytes) - b0)) off=$(($(cam_stat urbs_irqs_off) - i0))
echo "bench: driver cost at 640x480 YUYV @30: $urbs URBs, their packet work $(awk -v n="$ns" -v u="$urbs" 'BEGIN { printf "%.1f", (u ? n / u / 1e3 : 0) }') us each (worst since plug $(($(cam_stat urb_ns_max) / 1000)) us), $(awk -v n="$ns" -v b="$bytes" 'BEGIN { printf "%.2f", (b ? n / b * 1024 : 0) }') ns a KiB copied, $(awk -v n="$ns" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", 100 * n / (b - a) }')% of the guest CPU; $off of $urbs URBs completed with interrupts off"
# What the raw format makes of the same size: its fastest offered rate.
fast=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=1280,height=960,pixelformat=YUYV |
	sed -n 's/.*(\([0-9]*\)\.[0-9]* fps).*/\1/p' | head -n 1)
[ -n "$fast" ] || fail "no frame rate for 1280x960 YUYV"
read -r fps_r mbs_r bpf_r <<<"$(rate YUYV 1280 960 "$fast")"
echo "bench: throughput 1280x960 YUYV @$fast (its fastest over the link): $fps_r fps, $mbs_r MB/s, $bpf_r bytes a frame"
read -r fps_m mbs_m bpf_m <<<"$(rate MJPG 1280 960 30)"
echo "bench: throughput 1280x960 MJPEG @30: $fps_m fps, $mbs_m MB/s, $bpf_m bytes a frame"
echo "bench: throughput MJPEG 1280x960 / YUYV 640x480: fps $(awk -v a="$fps_m" -v b="$fps_y" 'BEGIN { printf "%.2f", a / b }')x, pixels a second $(awk -v a="$fps_m" -v b="$fps_y" 'BEGIN { printf "%.2f", 4 * a / b }')x, bus MB/s $(awk -v a="$mbs_m" -v b="$mbs_y" 'BEGIN { printf "%.2f", a / b }')x"

# fastest NODE W H FOURCC: the highest frame rate NODE offers at that size.
fastest() {
	v4l2-ctl -d "$1" --list-frameintervals="width=$2,height=$3,pixelformat=$4" |
		sed -n 's/.*(\([0-9.]*\) fps).*/\1/p' | sort -n | tail -n 1 |
		sed 's/\.0*$//'
}
f320=$(fastest "$NODE" 320 240 YUYV)
[ -n "$f320" ] || fail "no frame rate for 320x240 YUYV"
read -r fps_s mbs_s _ <<<"$(rate YUYV 320 240 "$f320")"
vivid_start
fv=$(fastest "$VIVID" 320 180 YUYV)
[ -n "$fv" ] || fail "vivid offers no rate at 320x180 YUYV"
read -r fps_v mbs_v _ <<<"$(rate YUYV 320 180 "$fv" "$VIVID")"
echo "bench: throughput 320x240 YUYV at its fastest (@$f320): $fps_s fps, $mbs_s MB/s; vivid 320x180 YUYV @$fv (reference): $fps_v fps, $mbs_v MB/s; frame rate $(awk -v a="$fps_s" -v b="$fps_v" 'BEGIN { printf "%.2f", a / b }')x vivid's"
cat "$DBG/stats" >"$RESULTS/stats.txt"
