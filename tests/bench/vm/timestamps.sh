#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): how evenly buffers are stamped, with
# the camera's clock recovered (hwtimestamps=Y) against the first packet's
# arrival (hwtimestamps=N), in the same boot, at 640x480 YUYV 30 fps.
# The emulated camera captures exactly one frame interval apart, so a
# stamp spacing's departure from (sequence distance x interval) is the
# stamping's own jitter. Then ffmpeg captures with the recovered stamps
# and its "non monotonically increasing dts" warnings are counted.
# Frames per run: $ISOCAM_BUILD/bench/ts-frames (make bench BENCH_TS_FRAMES=N),
# else 900. Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 7200
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl ffmpeg awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
FRAMES=900
[ ! -r "$ISOCAM_BUILD/bench/ts-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/ts-frames")
INTERVAL_NS=33333333

stamps_camera_start
PARAM=$HWTS

# spacing FILE: "frames rms_us p99_us max_us" of the stamps' departure from
# the frame interval, over the frames after the first second (the clock's
# warm-up, and the stream's start).
spacing() {
	awk -v iv="$INTERVAL_NS" '
		NR > 31 {
			d = ($2 - ts) - ($1 - seq) * iv
			print d < 0 ? -d : d
		}
		{ seq = $1; ts = $2 }' "$1" | sort -n |
		awk '{ v[NR] = $1; ss += $1 * $1 }
		END {
			if (!NR) { print "0 0 0 0"; exit }
			p = int(NR * 0.99)
			printf "%d %.1f %.1f %.1f\n", NR, sqrt(ss / NR) / 1e3,
				v[p < 1 ? 1 : p] / 1e3, v[NR] / 1e3
		}'
}

for mode in Y N; do
	echo "$mode" >"$PARAM"
	r=$("$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$RESULTS/stamps-$mode.txt" "$NODE") ||
		fail "isocam-stream: $r"
	assert_match "$r" 'end=count' "the stream with hwtimestamps=$mode"
	read -r n rms p99 max < <(spacing "$RESULTS/stamps-$mode.txt")
	eval "RMS_$mode=$rms MAX_$mode=$max"
	echo "bench: stamps hwtimestamps=$mode: $n spacings, departure from the frame interval rms $rms us, p99 $p99 us, max $max us ($r)"
done
echo "bench: stamps: arrival / recovered jitter: rms $(awk -v a="$RMS_N" -v b="$RMS_Y" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x, max $(awk -v a="$MAX_N" -v b="$MAX_Y" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x"

echo Y >"$PARAM"
ffmpeg -hide_banner -nostdin -f v4l2 -input_format yuyv422 -video_size 640x480 \
	-framerate 30 -i "$NODE" -frames:v "$FRAMES" -f rawvideo -y /dev/null \
	>"$RESULTS/ffmpeg.log" 2>&1 || fail "ffmpeg failed (see ffmpeg.log)"
dts=$(grep -c 'non monotonically increasing dts' "$RESULTS/ffmpeg.log" || true)
echo "bench: ffmpeg, $FRAMES frames with recovered stamps: $dts 'non monotonically increasing dts' warnings"
cat "$DBG/stats" >"$RESULTS/stats.txt"
