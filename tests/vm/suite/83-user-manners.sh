#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The seed's manners, each by separate processes as
# a user would meet them.
#  - A format set with `v4l2-ctl --set-fmt-video` is what a later process
#    gets: its own --get-fmt-video, a v4l2-ctl capture that sets nothing,
#    and ffmpeg given only the pixel format (it keeps the set size).
#  - Two processes hold the device open at once; the idle one cannot
#    change the format under the streaming one (EBUSY), and closing it
#    leaves the stream running.
#  - Closing the streaming one stops the stream: the camera sees alt 0.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl ffmpeg

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

camera_start -v
driver_debugfs

# Each manner is a KTAP subtest; the processes they watch are started and
# ended between them.
format_persists() {
	v4l2-ctl -d "$NODE" --set-fmt-video=width=320,height=240,pixelformat=GREY ||
		fail "v4l2-ctl --set-fmt-video failed"
	fmt=$(v4l2-ctl -d "$NODE" --get-fmt-video)
	assert_match "$fmt" "Width/Height[[:space:]]*: 320/240" "size seen by the next process"
	assert_match "$fmt" "Pixel Format[[:space:]]*: 'GREY'" "format seen by the next process"
	v4l2-ctl -d "$NODE" --stream-mmap --stream-count=30 --stream-to=/tmp/grey.raw \
		>"$RESULTS/stream-grey.log" 2>&1 || fail "v4l2-ctl capture failed"
	"$CHECK" --format grey --size 320x240 --expect-frames 30 /tmp/grey.raw \
		>"$RESULTS/check-grey.log" 2>&1 || {
		cat "$RESULTS/check-grey.log" >&2
		fail "a capture that sets no format did not get 320x240 GREY"
}
log "v4l2-ctl capture: $(tail -n 1 "$RESULTS/check-grey.log")"
ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format rgb565le \
	-i "$NODE" -frames:v 30 -fps_mode passthrough -f rawvideo -y /tmp/rgb.raw \
	2>"$RESULTS/ffmpeg-rgb.log" || fail "ffmpeg failed: $(tail -n 5 "$RESULTS/ffmpeg-rgb.log")"
"$CHECK" --format rgb565 --size 320x240 --expect-frames 30 --any-start /tmp/rgb.raw \
	>"$RESULTS/check-rgb.log" 2>&1 || {
	cat "$RESULTS/check-rgb.log" >&2
	fail "ffmpeg without -video_size did not get the set 320x240"
}
log "ffmpeg capture: $(tail -n 1 "$RESULTS/check-rgb.log")"
rm -f /tmp/grey.raw /tmp/rgb.raw
}
subtest "a format set by one process is what the next one gets" format_persists

streamer_and_idle_holder "$RESULTS/stream-long.log"

two_hold_open() {
	holds_open "$STREAM_PID" "$NODE" || fail "the streaming process does not hold $NODE"
	log "pids $STREAM_PID (streaming) and $HOLD_PID (idle) hold $NODE"
	# A third, short-lived one may not change the format under the stream.
	s_fmt_refused_while_streaming
}
subtest "two processes hold the device open; the idle one cannot change the format" two_hold_open

alts=$(emu_alts)
kill "$HOLD_PID"
wait "$HOLD_PID" 2>/dev/null || true
HOLD_PID=

idle_close() {
	f1=$(cam_stat frames)
	sleep 1
	f2=$(cam_stat frames)
	assert_ge "$((f2 - f1))" 10 "frames in the second after the idle process closed"
	assert_eq "$(emu_alts)" "$alts" "alt settings the camera saw after the idle close"
	kill -0 "$STREAM_PID" || fail "the streaming process died"
}
subtest "closing the idle one leaves the stream running" idle_close

# (SIGTERM: a non-interactive shell starts background jobs with SIGINT
# ignored.)
kill -TERM "$STREAM_PID"
wait "$STREAM_PID" 2>/dev/null || true
STREAM_PID=

stream_close() {
	stream_stopped_since "$alts"
	log "alt settings the camera saw: $(emu_alts)"
}
subtest "closing the streaming one stops the stream" stream_close
subtests_done
camera_stop
