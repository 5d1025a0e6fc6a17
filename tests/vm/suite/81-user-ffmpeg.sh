#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 6, scenario 2 (first slice): ffmpeg captures 300 frames of
# 640x480 YUYV at 30 fps through isocam, and isocam-check finds every
# frame counter once and in order, every checksum and every pixel right.
# Then GREY and RGB565 at 320x240 for 30 frames each, by ffmpeg's own
# pixel format names.
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"

require_cmd ffmpeg

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

camera_start
NODE=$CAMERA_VIDEO
log "camera at $NODE"

# ffcap PIXFMT WxH FPS FRAMES CHECKFMT
ffcap() {
	local out=/tmp/ff-$1-$2.raw
	step "ffmpeg $1 $2 @$3 fps, $4 frames"
	# passthrough: ffmpeg must neither duplicate nor drop frames to keep
	# a constant rate, or the checker would rightly see duplicates.
	ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 \
		-input_format "$1" -video_size "$2" -framerate "$3" -i "$NODE" \
		-frames:v "$4" -fps_mode passthrough -f rawvideo -y "$out" \
		2>"$RESULTS/ffmpeg-$1-$2.log" ||
		fail "ffmpeg $1 $2 failed: $(tail -n 5 "$RESULTS/ffmpeg-$1-$2.log")"
	"$CHECK" --format "$5" --size "$2" --expect-frames "$4" --any-start \
		"$out" >"$RESULTS/check-$1-$2.log" 2>&1 || {
		cat "$RESULTS/check-$1-$2.log" >&2
		fail "isocam-check rejected ffmpeg's $1 $2 capture"
	}
	log "$1 $2: $(tail -n 1 "$RESULTS/check-$1-$2.log")"
	rm -f "$out"
}

ffcap yuyv422 640x480 30 300 yuyv
ffcap gray 320x240 30 30 grey
ffcap rgb565le 320x240 30 30 rgb565
log "ffmpeg: all captures checked"
