#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# HD over high speed. The bridge's JPEG encoder as the node's
# MJPEG format: listed compressed, with a quality control; 1280x960 at
# 30 fps and 640x480 at 60 fps offered (YUYV carries neither); ffmpeg
# captures 300 frames of 1280x960 at 30 fps and isocam-check checks every
# one (stamp, counter, the JPEG byte for byte against the emulator's own
# encoding, PSNR against the reference render); GStreamer's v4l2src and
# jpegdec decode them; a quality change from a second process shows in
# the frame sizes within 2 frames.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ffmpeg gst-launch-1.0 v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

camera_start
driver_debugfs
log "camera at $NODE"

step "MJPEG is offered, compressed, with a quality control"
fmts=$(v4l2-ctl -d "$NODE" --list-formats)
assert_match "$fmts" "'MJPG' \(Motion-JPEG, compressed\)" "MJPEG in ENUM_FMT, flagged compressed"
ivals=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=1280,height=960,pixelformat=MJPG)
assert_match "$ivals" '\(30\.000 fps\)' "1280x960 MJPEG at 30 fps"
ivals=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=640,height=480,pixelformat=MJPG)
assert_match "$ivals" '\(60\.000 fps\)' "640x480 MJPEG at 60 fps"
ivals=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=1280,height=960,pixelformat=YUYV)
! grep -q '(30\.000 fps)' <<<"$ivals" || fail "1280x960 YUYV at 30 fps offered: it does not fit the link"
q=$(v4l2-ctl -d "$NODE" --get-ctrl=compression_quality) || fail "no compression_quality control"
assert_eq "$q" "compression_quality: 85" "the JPEG quality's default"
# The quality applies to MJPEG alone: inactive (flagged) while a raw
# format is set, active again with MJPEG.
v4l2-ctl -d "$NODE" -v pixelformat=YUYV || fail "set-fmt YUYV"
ctl=$(v4l2-ctl -d "$NODE" --list-ctrls | grep compression_quality)
assert_match "$ctl" 'flags=.*inactive' "compression_quality while YUYV is set: $ctl"
v4l2-ctl -d "$NODE" -v width=1280,height=960,pixelformat=MJPG || fail "set-fmt MJPG 1280x960"
ctl=$(v4l2-ctl -d "$NODE" --list-ctrls | grep compression_quality)
! grep -q inactive <<<"$ctl" || fail "compression_quality inactive while MJPEG is set: $ctl"
# LOG_STATUS names the bridge's own control beside the sensor's.
v4l2-ctl -d "$NODE" --log-status >/dev/null || fail "--log-status"
dmesg | tail -n 40 | grep -q 'JPEG quality: 85' || fail "LOG_STATUS does not show the JPEG quality"
fmt=$(v4l2-ctl -d "$NODE" --get-fmt-video)
assert_match "$fmt" "Bytes per Line[[:space:]]*: 0" "MJPEG's bytesperline"
assert_match "$fmt" "Size Image[[:space:]]*: 339968" "MJPEG 1280x960's sizeimage (ISOCAM_JPEG_MAX_FRAME)"
assert_match "$fmt" "Colorspace[[:space:]]*: JPEG" "MJPEG's colorspace"

step "ffmpeg: 300 frames of 1280x960 MJPEG at 30 fps, every one checked"
err0=$(cam_stat error_frames)
drop0=$(cam_stat dropped_frames)
out=/tmp/mjpeg-1280x960.mjpeg
ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format mjpeg \
	-video_size 1280x960 -framerate 30 -i "$NODE" -frames:v 300 \
	-fps_mode passthrough -c:v copy -f mjpeg -y "$out" 2>"$RESULTS/ffmpeg.log" ||
	fail "ffmpeg failed: $(tail -n 5 "$RESULTS/ffmpeg.log")"
"$CHECK" --format mjpeg --size 1280x960 --expect-frames 300 --any-start "$out" \
	>"$RESULTS/check-1280x960.log" 2>&1 || {
	tail -n 20 "$RESULTS/check-1280x960.log" >&2
	fail "isocam-check rejected ffmpeg's MJPEG capture"
}
bytes=$(stat -c %s "$out")
log "ffmpeg: $(tail -n 1 "$RESULTS/check-1280x960.log"); $((bytes / 300)) bytes a frame"
rm -f "$out"
# ffmpeg asks for few buffers: a late ffmpeg may drop (counted), the bus
# may lose nothing.
assert_eq "$(cam_stat error_frames)" "$err0" "frames lost or cut short on the bus"
log "dropped for want of a buffer: $(($(cam_stat dropped_frames) - drop0))"
# The encoder's cost in this guest stays inside the frame interval: the
# camera never had a frame it could not send (the priming encodes freeze
# it instead, losing nothing).
assert_eq "$(emu_frames_dropped 1-1)" 0 "frames the camera could not send"
log "camera: $(grep -o 'jpeg: .*' "$CAMERA_EMU_LOG" | tail -n 1)"

step "GStreamer: v4l2src ! jpegdec, 30 frames of 1280x960"
gst=/tmp/gst-1280x960.yuv
timeout 300 gst-launch-1.0 -q v4l2src device="$NODE" num-buffers=30 ! \
	image/jpeg,width=1280,height=960,framerate=30/1 ! jpegdec ! \
	video/x-raw,format=I420 ! filesink location="$gst" >"$RESULTS/gst.log" 2>&1 ||
	fail "gst-launch-1.0 failed: $(tail -n 5 "$RESULTS/gst.log")"
# I420 (jpegdec's planar 4:2:0): 1.5 bytes a pixel.
assert_eq "$(stat -c %s "$gst")" $((30 * 1280 * 960 * 3 / 2)) "bytes jpegdec decoded"
rm -f "$gst"

step "640x480 MJPEG at 60 fps: 120 frames checked"
v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=MJPG || fail "set-fmt MJPG 640x480"
v4l2-ctl -d "$NODE" -p 60 >/dev/null || fail "set-parm 60"
parm=$(v4l2-ctl -d "$NODE" --get-parm)
assert_match "$parm" 'Frames per second: 60\.000' "640x480 MJPEG's frame rate"
v4l2-ctl -d "$NODE" --stream-mmap=16 --stream-count=120 --stream-to=/tmp/mjpeg-640.mjpeg \
	>"$RESULTS/v4l2-ctl-640.log" 2>&1 || fail "640x480 MJPEG capture failed"
"$CHECK" --quiet --format mjpeg --size 640x480 --expect-frames 120 /tmp/mjpeg-640.mjpeg \
	>"$RESULTS/check-640x480.log" 2>&1 || {
	cat "$RESULTS/check-640x480.log" >&2
	fail "isocam-check rejected 640x480 MJPEG at 60 fps"
}
log "640x480 @60: $(cat "$RESULTS/check-640x480.log")"
rm -f /tmp/mjpeg-640.mjpeg

step "a quality change from a second process, within 2 frames"
v4l2-ctl -d "$NODE" -v width=1280,height=960,pixelformat=MJPG || fail "set-fmt MJPG 1280x960"
v4l2-ctl -d "$NODE" -p 30 >/dev/null || fail "set-parm 30"
v4l2-ctl -d "$NODE" -c compression_quality=85 || fail "quality 85"
cid=$(v4l2-ctl -d "$NODE" --list-ctrls | awk '$1 == "compression_quality" { print $2 }')
[ -n "$cid" ] || fail "compression_quality has no control ID in --list-ctrls"
# The capture logs each frame's stamp and size, and the control's change
# event with its own stamp: when the second process's write was done.
T=$RESULTS/quality-stream.txt
"$STREAM" -n 120 -t 10000 -b 8 -T "$T" -e "$cid" "$NODE" >"$RESULTS/quality-stream.out" 2>&1 &
cap=$!
camera_track "$cap"
wait_for "[ \"\$(wc -l 2>/dev/null <'$T' || echo 0)\" -ge 45 ]" 60 "45 frames at quality 85"
v4l2-ctl -d "$NODE" -c compression_quality=10 || fail "quality 10 from a second process"
wait "$cap" || fail "the capture failed: $(cat "$RESULTS/quality-stream.out")"
assert_match "$(cat "$RESULTS/quality-stream.out")" 'end=count' "the capture's end"
te=$(awk '$1 == "E" && $4 == 10 { print $2; exit }' "$T")
[ -n "$te" ] || fail "the capture saw no change event to quality 10"
# Frames exposed (the stamp) more than 100 ms before the event were
# encoded before the write: large. Of those exposed after it, at most two
# may still be large, and none after the first small one: under 3/4 of
# the smallest at quality 85 (this scene's JPEGs at quality 10 are about
# half that size).
verdict=$(awk -v te="$te" '
	$1 == "E" { next }
	$2 < te - 100000000 { if (!nb || $4 < minb) minb = $4; nb++; next }
	$2 < te { next }
	{
		after++
		if (!small) { if (nb && $4 < minb * 3 / 4) small = after }
		else if ($4 >= minb * 3 / 4) bad++
	}
	END { print nb + 0, minb + 0, after + 0, small + 0, bad + 0 }' "$T")
read -r n_before min_before n_after first_small big_again <<<"$verdict"
log "quality 85 -> 10: $n_before frames before the change (the smallest $min_before bytes), $n_after exposed after its event; the first small one is number $first_small of those, $big_again large ones after it"
assert_ge "$n_before" 40 "frames captured at quality 85"
[ "$first_small" -ge 1 ] || fail "no frame got smaller after the quality change"
assert_le "$first_small" 3 "frames exposed after the change until the sizes drop (at most 2 still large)"
assert_eq "$big_again" 0 "large frames after the change"

detach_camera
stop_emu
log "84-user-mjpeg: ok"
