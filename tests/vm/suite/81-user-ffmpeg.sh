#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ffmpeg captures 300 frames of 640x480 YUYV at
# 30 fps through isocam, and isocam-check finds every frame counter once
# and in order, every checksum and every pixel right. Then every other
# format and size the node lists, 30 frames each at the fastest rate it
# lists up to 30 fps, by ffmpeg's own pixel format names.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"

require_cmd ffmpeg v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

camera_start
log "camera at $NODE"

# ffcap PIXFMT WxH FPS FRAMES CHECKFMT
ffcap() {
	local out=/tmp/ff-$1-$2.raw mux=(-f rawvideo)
	step "ffmpeg $1 $2 @$3 fps, $4 frames"
	# MJPEG as the camera sent it: the JPEGs back to back.
	[ "$1" != mjpeg ] || mux=(-c:v copy -f mjpeg)
	# passthrough: ffmpeg must neither duplicate nor drop frames to keep
	# a constant rate, or the checker would rightly see duplicates.
	ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 \
		-input_format "$1" -video_size "$2" -framerate "$3" -i "$NODE" \
		-frames:v "$4" -fps_mode passthrough "${mux[@]}" -y "$out" \
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

# Every format and size: "FOURCC WxH FPS" with the fastest whole frame
# rate up to 30 the node lists for that pair.
combos=$(v4l2-ctl -d "$NODE" --list-formats-ext | awk '
	/^[[:space:]]*\[[0-9]+\]: / { split($0, q, "\047"); fourcc = q[2] }
	/Size: Discrete/ { size = $3 }
	/Interval: Discrete/ {
		fps = $4; sub(/^\(/, "", fps); fps = int(fps + 0.5)
		k = fourcc " " size
		if (fps <= 30 && fps > best[k]) best[k] = fps
		if (!(k in seen)) { seen[k] = 1; order[n++] = k }
	}
	END { for (i = 0; i < n; i++) print order[i], best[order[i]] }')
[ -n "$combos" ] || fail "v4l2-ctl --list-formats-ext listed nothing"
n=0
while read -r fourcc size fps; do
	case "$fourcc" in
	YUYV) pixfmt=yuyv422 check=yuyv ;;
	RGBP) pixfmt=rgb565le check=rgb565 ;;
	GREY) pixfmt=gray check=grey ;;
	MJPG) pixfmt=mjpeg check=mjpeg ;;
	*) fail "the node lists $fourcc, which this test does not know" ;;
	esac
	n=$((n + 1))
	[ "$fourcc $size" != "YUYV 640x480" ] || continue
	[ "$fps" -gt 0 ] || fail "$fourcc $size: no frame rate up to 30 fps"
	ffcap "$pixfmt" "$size" "$fps" 30 "$check"
done <<<"$combos"
assert_ge "$n" 16 "format/size pairs the node lists"
log "ffmpeg: all $n format/size pairs captured and checked"
