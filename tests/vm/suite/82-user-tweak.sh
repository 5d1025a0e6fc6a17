#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tweak controls while capturing. ffmpeg captures
# 640x480 YUYV; meanwhile a second process changes brightness, contrast,
# exposure, gain, hflip and the test pattern with `v4l2-ctl -c`, and a
# third waits with `v4l2-ctl --wait-for-event=ctrl=brightness`.
#  - isocam-check finds no lost, repeated or wrong frame in the capture;
#  - each change shows in the captured frames (their stamps) within 2
#    frames of the frame the camera was about to capture when the sensor
#    register was written (the emulator logs it: "(next frame N)");
#  - the waiting process receives the brightness change event.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ffmpeg v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

regs_h=$ISOCAM_ROOT/include/isocam/ic1280_regs.h
FLIP_H=$(($(awk '$1 == "#define" && $2 == "IC1280_FLIP_H" { print $3 }' "$regs_h")))

camera_start -v
driver_debugfs

# Manual exposure: with auto exposure on, the sensor owns exposure and
# gain and exposure_time_absolute is inactive.
v4l2-ctl -d "$NODE" -c auto_exposure=1 || fail "v4l2-ctl -c auto_exposure=1"

# ffmpeg's cap; the capture ends (SIGTERM) a second after the last change,
# so a slower machine only makes it longer. isocam-check reads it as it
# comes, through a pipe: kept in the guest's tmpfs, the debug kernel's
# capture filled it at about 700 frames (430 MB).
MAX_FRAMES=1800
PIPE=/tmp/tweak.fifo
rm -f "$PIPE"
mkfifo "$PIPE"
step "ffmpeg captures 640x480 yuyv422 at 30 fps"
"$CHECK" --format yuyv --size 640x480 --any-start --timeline "$PIPE" \
	>"$RESULTS/check.log" 2>&1 &
CHECK_PID=$!
camera_track "$CHECK_PID"
ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format yuyv422 \
	-video_size 640x480 -framerate 30 -i "$NODE" -frames:v "$MAX_FRAMES" \
	-fps_mode passthrough -f rawvideo pipe:1 >"$PIPE" 2>"$RESULTS/ffmpeg.log" &
FF_PID=$!
camera_track "$FF_PID"
wait_for '[ "$(cam_stat frames)" -ge 15 ]' 30 "ffmpeg's capture to run"

step "a third process waits for the brightness event"
v4l2-ctl -d "$NODE" --wait-for-event=ctrl=brightness >"$RESULTS/event.log" 2>&1 &
EV_PID=$!
camera_track "$EV_PID"
# It subscribes right after it opens the node: wait for the open, then a
# moment for the subscription.
wait_for "holds_open $EV_PID $NODE" 10 "v4l2-ctl --wait-for-event to open $NODE"
sleep 1
kill -0 "$EV_PID" 2>/dev/null || fail "v4l2-ctl --wait-for-event returned before any change: $(cat "$RESULTS/event.log")"

# CONTROL=VALUE  stamp field  value the stamp must show
CHANGES=(
	"brightness=40 brightness 40"
	"contrast=200 contrast 200"
	"exposure_time_absolute=250 exposure 250"
	"analogue_gain=64 gain 64"
	"horizontal_flip=1 flip $FLIP_H"
	"test_pattern=2 pattern 2"
)
declare -A WRITTEN=()
step "a second process changes controls while ffmpeg captures"
for c in "${CHANGES[@]}"; do
	read -r set field _ <<<"$c"
	lines=$(wc -l <"$CAMERA_EMU_LOG")
	v4l2-ctl -d "$NODE" -c "$set" || fail "v4l2-ctl -c $set failed while streaming"
	# The sensor writes synchronously: its register writes are logged by
	# the time v4l2-ctl returns. The first one's frame is the change's.
	frame=$(tail -n +"$((lines + 1))" "$CAMERA_EMU_LOG" |
		sed -n 's/.* write reg .* (next frame \([0-9]*\))$/\1/p' | head -n 1)
	[ -n "$frame" ] || fail "$set: the camera saw no register write while streaming"
	WRITTEN[$field]=$frame
	log "$set: written before frame $frame"
	[ "$set" != brightness=40 ] || wait_for "! kill -0 $EV_PID 2>/dev/null" 5 \
		"the third process to get the brightness event"
	sleep 0.5
done

step "the waiting process got the event"
st=0
wait "$EV_PID" || st=$?
EV_PID=
cat "$RESULTS/event.log"
assert_eq "$st" 0 "v4l2-ctl --wait-for-event exit status"
grep -qi 'ctrl' "$RESULTS/event.log" || fail "no control event in: $(cat "$RESULTS/event.log")"
grep -q 'value: 40' "$RESULTS/event.log" || fail "the event does not carry brightness 40"

step "the capture"
sleep 1
kill -0 "$FF_PID" 2>/dev/null || fail "ffmpeg ended early: $(tail -n 5 "$RESULTS/ffmpeg.log")"
kill -TERM "$FF_PID"
st=0
wait "$FF_PID" || st=$?
FF_PID=
# 255: ffmpeg's status when it stopped on a signal, its output complete.
[ "$st" = 255 ] || fail "ffmpeg exit status $st: $(tail -n 5 "$RESULTS/ffmpeg.log")"
st=0
wait "$CHECK_PID" || st=$?
CHECK_PID=
rm -f "$PIPE"
[ "$st" = 0 ] || {
	cat "$RESULTS/check.log" >&2
	fail "isocam-check rejected the capture (status $st)"
}
grep -v ': start ' "$RESULTS/check.log"

step "each change within 2 frames"
for c in "${CHANGES[@]}"; do
	read -r set field want <<<"$c"
	seen=$(sed -n "s/^frame [0-9]* counter \([0-9]*\): $field [-0-9]* -> $want\$/\1/p" \
		"$RESULTS/check.log" | head -n 1)
	[ -n "$seen" ] || fail "$set never showed in the captured frames ($field -> $want)"
	delay=$((seen - WRITTEN[$field]))
	log "$set: in the picture from frame $seen, $delay frame(s) after the write"
	assert_ge "$delay" 0 "$set: frames between the write and the picture"
	assert_le "$delay" 2 "$set: frames between the write and the picture"
done
log "$(tail -n 1 "$RESULTS/check.log")"
camera_stop
