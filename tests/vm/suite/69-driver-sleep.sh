#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A system sleep of the camera's USB device (the USB core's system-sleep
# callbacks, run by the test module isocam_usbsleep: the guest itself
# cannot sleep, its virtio-9p root never comes back), for each transport
# and as a FunctionFS gadget on dummy_hcd:
#  - while idle: the driver stays bound, the video node is the same, the
#    format and a control set before it are still set, and it streams;
#  - while streaming: the capture goes on to its end with good frames,
#    its sequence numbers skipping the frames the sleep cost;
#  - the seed's manners hold across a sleep: of two processes holding
#    the node, the idle one still cannot change the format, closing it
#    leaves the stream running, closing the streaming one stops it;
#  - the gadget sees the bus suspend and resume, and an ffmpeg capture
#    across a sleep goes on with every frame right, the frames the sleep
#    cost missing and counted, no more;
#  - a camera that loses its power while asleep (USB_QUIRK_RESET_RESUME:
#    the USB core resets it on the way back, .reset_resume) is configured
#    again and the capture goes on;
#  - no error line.
# vm-timeout: 600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/gadget.sh"
PAUSE="the sleep"
. "$ISOCAM_ROOT/tests/vm/lib/pause.sh"

require_cmd usbip v4l2-ctl ffmpeg
CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
QUIRKS=/sys/module/usbcore/parameters/quirks
trap 'set +e; _camera_cleanup; echo >$QUIRKS; gadget_cleanup' EXIT

usb_sleep_setup

# sleep_cycle NAME: the plugged camera sleeps while idle, then while
# streaming.
sleep_cycle() {
	local name=$1
	pause_settings
	kmsg_mark "sleep-idle-$name"
	usb_sleep
	subtest "$name: a sleep while idle keeps the node and the settings" \
		same_node_and_settings "sleep-idle-$name"
	subtest "$name: after a sleep while idle, the camera streams" streams_after

	pause_capture_start "$name"
	usb_sleep
	subtest "$name: a capture goes on across a sleep" capture_goes_on "$name"
	subtest "$name: no error line from the sleeps" no_error_lines "sleep-idle-$name"
}

# The seed's manners across a sleep (83-user-manners before one): a
# streaming and an idle process hold the node while the camera sleeps.
# Needs isocam-emu -v (its alt setting lines).
idle_still_cannot_change() {
	local f1
	holds_open "$STREAM_PID" "$NODE" || fail "the streaming process does not hold $NODE"
	f1=$(cam_stat frames)
	wait_for "[ \$(cam_stat frames) -gt $((f1 + 5)) ]" 10 "frames after the sleep"
	s_fmt_refused_while_streaming
}

idle_close_after_a_sleep() {
	local f1
	f1=$(cam_stat frames)
	sleep 1
	assert_ge "$(($(cam_stat frames) - f1))" 10 "frames in the second after the idle process closed"
	assert_eq "$(emu_alts)" "$ALTS" "alt settings the camera saw after the idle close"
	kill -0 "$STREAM_PID" || fail "the streaming process died"
}

manners_across_a_sleep() {
	streamer_and_idle_holder "$RESULTS/stream-manners.log"
	usb_sleep
	subtest "iso: after a sleep, the idle process still cannot change the format" \
		idle_still_cannot_change
	ALTS=$(emu_alts)
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null || true
	subtest "iso: after a sleep, closing the idle process leaves the stream running" \
		idle_close_after_a_sleep
	# (SIGTERM: background jobs start with SIGINT ignored)
	kill -TERM "$STREAM_PID"
	wait "$STREAM_PID" 2>/dev/null || true
	subtest "iso: after a sleep, closing the streaming process stops the stream" \
		stream_stopped_since "$ALTS"
}

gadget_saw_it() {
	file_has "$FFS_LOG" 'ffs: suspended by the host' || fail "the gadget saw no suspend"
	file_has "$FFS_LOG" 'ffs: resumed by the host' || fail "the gadget saw no resume"
}

# 90 frames of 320x240 YUYV at 15 fps across a sleep: the sensor starts
# again after it (its counter from 0), and every frame is right. (The
# frames the sleep cost show in the sequence numbers: capture_goes_on.)
ffmpeg_across_a_sleep() {
	local out=/tmp/ff-sleep.raw ff sum n0
	n0=$(cam_stat frames)
	ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 \
		-input_format yuyv422 -video_size 320x240 -framerate 15 -i "$NODE" \
		-frames:v 90 -fps_mode passthrough -f rawvideo -y "$out" \
		2>"$RESULTS/ffmpeg-sleep.log" &
	ff=$!
	wait_for "[ \$(cam_stat frames) -gt $((n0 + 15)) ]" 30 "ffmpeg's capture to run"
	usb_sleep
	wait "$ff" || fail "ffmpeg across the sleep: $(tail -n 5 "$RESULTS/ffmpeg-sleep.log")"
	assert_eq "$(cam_node)" "$NODE" "the video node after the sleep"
	"$CHECK" --format yuyv --size 320x240 --expect-frames 90 --any-start \
		--allow-restarts --allow-drops "$out" >"$RESULTS/check-sleep.log" 2>&1 || {
		cat "$RESULTS/check-sleep.log" >&2
		fail "isocam-check rejected ffmpeg's capture across the sleep"
	}
	rm -f "$out"
	sum=$(tail -n 1 "$RESULTS/check-sleep.log")
	log "ffmpeg across the sleep: $sum"
	[[ $sum == *" 1 restarts, "* ]] || fail "not one restart of the sensor: $sum"
	# (at most the first frame after the restart, cut by it)
	[ "$(check_gaps "$RESULTS/check-sleep.log")" -le 1 ] ||
		fail "frames missing besides the sleep's: $sum"
}

reset_on_the_way_back() {
	dmesg | kmsg_after_mark sleep-reset-resume |
		grep 'reset high-speed USB device' >/dev/null ||
		fail "the USB core did not reset the camera on the way back"
}

# (-v: the camera logs every i2c write; 0x5000 is brightness)
sensor_written_again() {
	local now
	now=$(grep -c 'i2c 0x3c write reg 0x5000 = ' "$CAMERA_EMU_LOG" || true)
	[ "$now" -gt "$BRIGHTNESS_WRITES" ] ||
		fail "the sensor's registers were not written again after the reset"
}

driver_setup
stop_emu
for t in iso bulk; do
	start_emu -v --transport="$t"
	plug
	sleep_cycle "$t"
	[ "$t" != iso ] || manners_across_a_sleep
	unplug
	stop_emu
done

# A camera that loses its power while asleep.
start_emu -v --transport=iso
echo "$CAMERA_VID:$CAMERA_PID:b" >$QUIRKS
plug
pause_settings
pause_capture_start reset-resume
kmsg_mark sleep-reset-resume
BRIGHTNESS_WRITES=$(grep -c 'i2c 0x3c write reg 0x5000 = ' "$CAMERA_EMU_LOG" || true)
usb_sleep
echo >$QUIRKS
subtest "a camera reset on the way back keeps the node and the settings" \
	same_node_and_settings sleep-reset-resume
subtest "the USB core reset the camera on the way back" reset_on_the_way_back
subtest "a capture goes on across a sleep with a reset" capture_goes_on reset-resume
subtest "after the reset the sensor's registers are written again" sensor_written_again
subtest "no error line from the sleep with a reset" no_error_lines sleep-reset-resume
unplug
stop_emu

gadget_setup
ffs_start -v
sleep_cycle gadget
subtest "gadget: the camera sees the bus suspend and resume" gadget_saw_it
subtest "gadget: ffmpeg's capture goes on across a sleep, every frame right" \
	ffmpeg_across_a_sleep
ffs_stop
subtests_done
unload_isocam_modules
log "69-driver-sleep: ok"
