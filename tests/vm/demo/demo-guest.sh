#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make demo` (scripts/demo.sh boots it with run-vm.sh,
# then encodes what it leaves in $RESULTS on the host): plug the emulated
# camera over usbip, stream five seconds with ffmpeg and change a control
# a third of the way in from a second process, and check every captured
# frame; then
# five seconds of 1280x960 MJPEG at 30 fps, the JPEGs as the camera sent
# them, checked too.
# ISOCAM_DEMO_GADGET=1 (`make demo GADGET=1`): the camera is a real USB
# gadget instead (isocam-emu --gadget=ffs on dummy_hcd's UDC, the bulk
# personality), plugged straight into the guest's dummy host controller.
# Leaves in $RESULTS: demo.yuyv (raw 640x480 YUYV), demo.env (size, rate,
# the frame index where the change shows, frames dropped and why),
# timeline.txt, demo-hd.mjpeg (the JPEGs back to back), hd-check.txt and
# logs.
#
# A busy machine may make ffmpeg late to give a buffer back, or the camera
# late to be polled: then frames are dropped, each with its cause, and the
# demo still delivers what it captured. It fails when it captured nothing
# usable, or when a frame went missing that nobody accounts for (the driver
# misbehaved).
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/gadget.sh"

require_cmd ffmpeg v4l2-ctl usbip

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

SIZE=640x480
FPS=30
SECS=5
FRAMES=$((FPS * SECS))
CONTROL=brightness
VALUE=80

demo_step() { printf '\n### %s\n' "$*"; }

GADGET=${ISOCAM_DEMO_GADGET:-0}
if [ "$GADGET" = 1 ]; then
	# shellcheck disable=SC2317
	_demo_cleanup() { set +e; _camera_cleanup; gadget_cleanup; }
	trap _demo_cleanup EXIT
	demo_step "load the drivers: ic1280 (sensor), isocam (USB bridge); dummy_hcd (a USB device controller wired to a host controller)"
	gadget_setup
	lsmod | grep -E '^(isocam|ic1280|dummy_hcd) '

	demo_step "plug in the camera as a real USB gadget: isocam-emu --gadget=ffs --udc=$UDC (configfs, FunctionFS, bulk)"
	ffs_start -v
	grep -m 5 -E 'ffs: ' "$FFS_LOG" | sed 's/^isocam-emu\[[ 0-9.]*\]: /camera: /' || true
else
	demo_step "load the drivers: ic1280 (sensor), isocam (USB bridge)"
	load_isocam_modules
	lsmod | grep -E '^(isocam|ic1280) '

	demo_step "start the emulated camera: isocam-emu (USB/IP server on port $EMU_PORT)"
	start_emu -v

	demo_step "plug it in: usbip attach -r 127.0.0.1 -b 1-1"
	usbip --tcp-port "$EMU_PORT" list -r 127.0.0.1
	attach_camera 1-1
	wait_for 'camera_video_node >/dev/null' 20 "the camera's video node"
	NODE=$(camera_video_node)
	wait_for "[ -c $NODE ]" 10 "$NODE"
	driver_debugfs
fi
dmesg | grep -E 'isocam|ic1280' | tail -n 5
v4l2-ctl -d "$NODE" --info | sed -n '1,6p'
TRANSPORT=$(cam_stat transport)
echo "demo: isocam drives $NODE over $TRANSPORT transfers"

# Frames the camera itself could not send so far (polled late, or its
# data not taken in time), from its status line.
camera_dropped() {
	if [ "$GADGET" = 1 ]; then
		ffs_frames_dropped
	else
		emu_frames_dropped 1-1
	fi
}
cam0=$(camera_dropped)
late0=$(cam_stat dropped_frames)
bad0=$(cam_stat error_frames)

demo_step "stream ${SECS} s with ffmpeg ($SIZE yuyv422 at $FPS fps) into /tmp/demo.yuyv"
ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format yuyv422 \
	-video_size "$SIZE" -framerate "$FPS" -i "$NODE" -frames:v "$FRAMES" \
	-fps_mode passthrough -f rawvideo -y /tmp/demo.yuyv 2>"$RESULTS/ffmpeg.log" &
FF_PID=$!
camera_track "$FF_PID"

demo_step "a third of the way in, from a second process: v4l2-ctl -c $CONTROL=$VALUE"
# By the frames ffmpeg has written so far. A third, not half, and one
# v4l2-ctl for the write and its read-back: on the debug kernel, with the
# camera's userspace a gadget in the same guest, each process takes a
# good part of a second to start, and a write at half time came after
# ffmpeg had all its frames.
third=$((FRAMES / 3 * ${SIZE%x*} * ${SIZE#*x} * 2))
wait_for "[ \$(stat -c %s /tmp/demo.yuyv 2>/dev/null || echo 0) -ge $third ]" 30 \
	"ffmpeg to capture a third of the frames"
# A write after the stream ended only sets the value for the next one.
kill -0 "$FF_PID" 2>/dev/null ||
	fail "ffmpeg had captured all $FRAMES frames before the $CONTROL write (a guest this slow cannot show the change)"
v4l2-ctl -d "$NODE" -c "$CONTROL=$VALUE" -C "$CONTROL"
grep -m1 'write reg 0x5000 .* (next frame' "${CAMERA_EMU_LOG:-$FFS_LOG}" | sed 's/^/camera: /' || true

wait "$FF_PID" || fail "ffmpeg failed: $(tail -n 5 "$RESULTS/ffmpeg.log")"
FF_PID=

demo_step "check every frame against the emulator's reference (isocam-check --timeline)"
# Gaps are judged below, by their causes; anything else wrong fails here.
"$CHECK" --format yuyv --size "$SIZE" --expect-frames "$FRAMES" --any-start \
	--allow-drops --timeline /tmp/demo.yuyv >"$RESULTS/timeline.txt" 2>&1 || {
	cat "$RESULTS/timeline.txt"
	fail "isocam-check rejected the capture"
}
grep -v ': start ' "$RESULTS/timeline.txt"

demo_step "every dropped frame and its cause"
drops=$(check_gaps "$RESULTS/timeline.txt")
late=$(($(cam_stat dropped_frames) - late0))
bad=$(($(cam_stat error_frames) - bad0))
cam_dropped=$(($(camera_dropped) - cam0))
cause="none"
if [ "${drops:-0}" -gt 0 ]; then
	cause="ffmpeg late to requeue (driver had no buffer): $late; flagged bad on the bus: $bad; the camera could not send (polled late): ${cam_dropped:-0}"
	[ "$drops" -le $((late + bad + ${cam_dropped:-0})) ] ||
		fail "$drops frames missing from the capture, only $((late + bad + ${cam_dropped:-0})) accounted for ($cause)"
fi
echo "demo: $FRAMES frames captured, ${drops:-0} dropped; causes: $cause"
change=$(sed -n "s/^frame \([0-9]*\) counter [0-9]*: $CONTROL .*/\1/p" "$RESULTS/timeline.txt" | head -n 1)
[ -n "$change" ] || fail "the $CONTROL change is not in the captured frames"
mv /tmp/demo.yuyv "$RESULTS/demo.yuyv"
cat >"$RESULTS/demo.env" <<EOF
SIZE=$SIZE
FPS=$FPS
FRAMES=$FRAMES
CONTROL=$CONTROL
VALUE=$VALUE
CHANGE_FRAME=$change
DROPPED=${drops:-0}
DROP_CAUSES="$cause"
TRANSPORT=$TRANSPORT
GADGET=$GADGET
EOF

demo_step "HD: ${SECS} s of 1280x960 MJPEG at $FPS fps with ffmpeg (-c:v copy: the camera's JPEGs)"
HD_FRAMES=$((FPS * SECS))
late0=$(cam_stat dropped_frames)
bad0=$(cam_stat error_frames)
cam0=$(camera_dropped)
ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format mjpeg \
	-video_size 1280x960 -framerate "$FPS" -i "$NODE" -frames:v "$HD_FRAMES" \
	-fps_mode passthrough -c:v copy -f mjpeg -y /tmp/demo-hd.mjpeg \
	2>"$RESULTS/ffmpeg-hd.log" || fail "ffmpeg (MJPEG) failed: $(tail -n 5 "$RESULTS/ffmpeg-hd.log")"
"$CHECK" --format mjpeg --size 1280x960 --expect-frames "$HD_FRAMES" --any-start \
	--allow-drops --quiet /tmp/demo-hd.mjpeg >"$RESULTS/hd-check.txt" 2>&1 || {
	cat "$RESULTS/hd-check.txt"
	fail "isocam-check rejected the MJPEG capture"
}
cat "$RESULTS/hd-check.txt"
hd_drops=$(check_gaps "$RESULTS/hd-check.txt")
hd_late=$(($(cam_stat dropped_frames) - late0))
hd_bad=$(($(cam_stat error_frames) - bad0))
hd_cam=$(($(camera_dropped) - cam0))
[ "${hd_drops:-0}" -le $((hd_late + hd_bad + hd_cam)) ] ||
	fail "$hd_drops MJPEG frames missing, only $((hd_late + hd_bad + hd_cam)) accounted for (ffmpeg late: $hd_late, bad on the bus: $hd_bad, the camera could not send: $hd_cam)"
echo "demo: HD: $HD_FRAMES JPEGs, $(($(stat -c %s /tmp/demo-hd.mjpeg) / HD_FRAMES)) bytes a frame on average, ${hd_drops:-0} dropped (ffmpeg late: $hd_late, bad on the bus: $hd_bad, the camera could not send: $hd_cam)"
mv /tmp/demo-hd.mjpeg "$RESULTS/demo-hd.mjpeg"
echo "HD_FRAMES=$HD_FRAMES" >>"$RESULTS/demo.env"

if [ "$GADGET" = 1 ]; then
	demo_step "unplug: stop the gadget (it unbinds the UDC)"
	ffs_stop
	wait_for no_isocam_left 20 "the driver's entries to go"
	no_gadget_left || fail "the gadget emulator left something behind"
else
	demo_step "unplug: usbip detach"
	camera_stop
fi
echo "demo: the camera streamed $FRAMES frames (${drops:-0} dropped); $CONTROL=$VALUE shows from frame $change"
