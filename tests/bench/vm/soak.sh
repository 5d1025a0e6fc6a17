#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): a long capture. ffmpeg records
# $FRAMES frames (10000 by default: 5.6 minutes) of 640x480 YUYV at 30 fps
# with the driver's recovered timestamps; counted: frames ffmpeg wrote,
# its "non monotonically increasing dts" warnings, and every frame lost
# with its cause (the driver's dropped frames: no buffer queued; its error
# frames: cut short on the bus; frames the camera could not send). The
# reference is the same count of frames at the camera's own rate: the
# wall time it should take. Frames: $ISOCAM_BUILD/bench/soak-frames, else
# 10000. Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 3600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ffmpeg v4l2-ctl
FRAMES=10000
[ ! -r "$ISOCAM_BUILD/bench/soak-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/soak-frames")

camera_start_vga
drop0=$(cam_stat dropped_frames) err0=$(cam_stat error_frames)
emu0=$(emu_frames_dropped)
t0=$(date +%s%N)
ffmpeg -hide_banner -nostdin -f v4l2 -input_format yuyv422 -video_size 640x480 \
	-framerate 30 -i "$NODE" -frames:v "$FRAMES" -fps_mode passthrough \
	-f rawvideo -y /dev/null >"$RESULTS/ffmpeg.log" 2>&1 ||
	fail "ffmpeg failed (see ffmpeg.log)"
t1=$(date +%s%N)
got=$(sed -n 's/.*frame= *\([0-9]*\) .*/\1/p' "$RESULTS/ffmpeg.log" | tail -n 1)
dts=$(grep -c 'non monotonically increasing dts' "$RESULTS/ffmpeg.log" || true)
drop=$(($(cam_stat dropped_frames) - drop0))
err=$(($(cam_stat error_frames) - err0))
emu=$(($(emu_frames_dropped) - emu0))
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
echo "bench: soak 640x480 YUYV @30: ffmpeg wrote ${got:-0} of $FRAMES frames in $secs s of guest time ($(awk -v s="$secs" -v n="$FRAMES" 'BEGIN { printf "%.3f", s / (n / 30) }')x the $(awk -v n="$FRAMES" 'BEGIN { printf "%.1f", n / 30 }') s they take at 30 fps); lost: $drop no buffer queued, $err cut short on the bus, $emu the camera could not send; $dts 'non monotonically increasing dts' warnings"
cat "$DBG/stats" >"$RESULTS/stats.txt"
camera_stop
