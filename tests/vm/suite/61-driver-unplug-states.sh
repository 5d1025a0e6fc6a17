#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unplug in every state the other scripts do not cover, and the
# lifetime rules behind them. Each is a subtest with a camera of its own
# (it starts the emulator, plugs, and leaves nothing plugged or running,
# also when it fails), and fails if the fix it proves broke:
#  - /dev/i2c-N held open: the unplug completes at once (the adapter goes
#    when the holder closes), the holder's next transfer fails;
#  - in the middle of /dev/i2c-N transfers from another process;
#  - a handle subscribed to control events, closed after the unplug;
#  - a DMABUF exported and still mapped by another process;
#  - ic1280 cannot be unbound through sysfs under the bridge;
#  - I2C_TIMEOUT 0 from userspace cannot make a transfer wait forever;
#  - a register read through the subdev node, waiting on a bridge that
#    stopped answering, when the unplug unbinds the sensor: the sensor's
#    regmap is not freed under it (kernels with VIDEO_ADV_DEBUG);
#  - a probe that fails once its nodes are public (fail_function on the
#    media registration) unwinds as an unplug does: it ends at once
#    although /dev/i2c-N was opened as soon as it appeared, and leaves
#    nothing behind (kernels with FAIL_FUNCTION: the suite's 7.2 and
#    debug kernels);
#  - bandwidth refused at URB submit (as EHCI does) falls back to a
#    smaller alt, and the user's frame interval survives the fallback.
# (Idle, open, streaming and mid-control unplugs: 60-driver-unplug*.sh.)
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl python3 usbip i2ctransfer
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

modprobe i2c-dev
driver_setup
stop_emu

# Every step's first line: whatever it leaves when it fails is undone.
# (An EXIT trap runs under set -e: one of its own starts with set +e, or a
# failed cleanup command fails a subtest that passed.)
own_camera() {
	trap _camera_cleanup EXIT
	start_emu "$@"
}

i2c_held_open() {
	local t0 ms
	own_camera
	plug
	I2C=$(cam_i2c_node) || fail "no i2c-dev node under $INTF"
	wait_for "[ -c $I2C ]" 10 "$I2C"
	hold i2c "$I2C"
	t0=$(date +%s%N)
	# The unplug must not wait for the holder (i2c_del_adapter would): the
	# holder only closes after unplug has returned.
	unplug
	ms=$((($(date +%s%N) - t0) / 1000000))
	log "unplug with $I2C held open took $ms ms"
	[ ! -e "/sys/bus/i2c/devices/${I2C#/dev/}" ] || fail "the adapter is still in sysfs after the unplug"
	release i2c
	stop_emu
}
subtest "unplug with /dev/i2c-N held open" i2c_held_open

i2c_transfers() {
	own_camera
	plug
	I2C=$(cam_i2c_node) || fail "no i2c-dev node under $INTF"
	wait_for "[ -c $I2C ]" 10 "$I2C"
	unplug_during "i2c transfers" 'i2ctransfer -f -y "${I2C#/dev/i2c-}" w2@0x3c 0x00 0x00 r2'
	stop_emu
}
subtest "unplug in the middle of /dev/i2c-N transfers" i2c_transfers

held_across() {
	own_camera
	plug
	hold "$1" "$NODE"
	unplug
	release "$1"
	stop_emu
}
subtest "unplug with control event subscriptions, closed after" held_across events
subtest "unplug with a DMABUF exported and mapped by another process" held_across dmabuf

sensor_stays_bound() {
	local c sensor=
	own_camera
	plug
	for c in "$INTF"/i2c-*/*-003c; do [ -e "$c" ] && sensor=$c; done
	[ -n "$sensor" ] || fail "no ic1280 client under $INTF"
	[ ! -e /sys/bus/i2c/drivers/ic1280/unbind ] || fail "ic1280 offers unbind in sysfs"
	[ "$(readlink -f "$sensor/driver")" = /sys/bus/i2c/drivers/ic1280 ] || fail "ic1280 is not bound"
	v4l2-ctl -d "$NODE" -l >"$RESULTS/ctrls.txt" || fail "v4l2-ctl -l failed"
	assert_match "$(cat "$RESULTS/ctrls.txt")" "brightness" "the sensor's controls on the node"
	unplug
	stop_emu
}
subtest "ic1280 cannot be unbound from under the bridge" sensor_stays_bound

fps() { v4l2-ctl -d "$NODE" -P | sed -n 's/.*Frames per second: *\([0-9.]*\).*/\1/p'; }

bandwidth_refused() {
	local fb0 out
	own_camera
	plug
	v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV -p 30 >/dev/null
	assert_eq "$(fps)" "30.000" "frame rate set"
	echo 5 >"$DBG/sim_max_alt"
	echo Y >"$DBG/sim_enospc_submit"
	fb0=$(cam_stat enospc_fallbacks)
	kmsg_mark "61: submit enospc"
	out=$("$STREAM" -n 10 -t 10000 "$NODE") || fail "isocam-stream: $out"
	log "with submit refusals: $out"
	assert_match "$out" "end=count" "streaming after the fallback"
	assert_match "$out" "good=10 " "every frame good after the fallback"
	assert_ge "$(cam_stat enospc_fallbacks)" $((fb0 + 1)) "fallbacks counted"
	dmesg | sed -n '/61: submit enospc/,$p' | grep "host refused bandwidth for alt" >/dev/null ||
		fail "no dev_warn about the fallback"
	assert_eq "$(fps)" "30.000" "the user's frame rate after the fallback"
	echo N >"$DBG/sim_enospc_submit"
	echo 0 >"$DBG/sim_max_alt"
	out=$("$STREAM" -n 10 -t 10000 "$NODE") || fail "isocam-stream: $out"
	assert_match "$out" "good=10 " "every frame good with the bandwidth back"
	unplug
	stop_emu
}
subtest "bandwidth refused at URB submit: fallback, and the interval stays" bandwidth_refused

# usb_control_msg() took a timeout of 0 as forever; the driver bounds it.
i2c_timeout0() {
	local out
	own_camera --hostile=ctrl-never --hostile-on=signal
	plug
	I2C=$(cam_i2c_node) || fail "no i2c-dev node under $INTF"
	wait_for "[ -c $I2C ]" 10 "$I2C"
	kill -USR2 "$EMU_PID"
	wait_for "grep -q 'hostile ctrl-never armed' '$CAMERA_EMU_LOG'" 10 "the emulator to arm"
	out=$(timeout 30 python3 "$ISOCAM_ROOT/tests/vm/lib/holder.py" timeout0 "$I2C" 2>&1) ||
		fail "I2C_TIMEOUT 0: ${out:-no answer in 30 s}"
	log "$out"
	assert_match "$out" "failed with ETIMEDOUT" "a transfer the bridge never answers"
	unplug
	stop_emu
}
subtest "I2C_TIMEOUT 0 against a bridge that never answers" i2c_timeout0

register_read_waiting() {
	own_camera --hostile=ctrl-never --hostile-on=signal
	plug
	SUBDEV=$(cam_subdev) || fail "no subdev node"
	hold regs "$SUBDEV"
	kill -USR2 "$EMU_PID"
	wait_for "grep -q 'hostile ctrl-never armed' '$CAMERA_EMU_LOG'" 10 "the emulator to arm"
	# A read is waiting (the bridge's timeout is 1 s) when the unplug
	# removes the sensor.
	sleep 0.3
	unplug
	release regs
	stop_emu
}
if grep -q '^CONFIG_VIDEO_ADV_DEBUG=y' "$ISOCAM_KCONFIG"; then
	subtest "unplug while a register read waits on a silent bridge" register_read_waiting
else
	log "not run: $ISOCAM_KVER has no CONFIG_VIDEO_ADV_DEBUG (no register access ioctls)"
fi

FF=/sys/kernel/debug/fail_function
probe_unwinds() {
	local held='' try
	trap 'set +e; echo "!isocam_media_register" >"$FF/inject" 2>/dev/null; _camera_cleanup' EXIT
	[ -d "$FF" ] || fail "CONFIG_FAIL_FUNCTION=y but no $FF"
	start_emu
	echo isocam_media_register >"$FF/inject" ||
		fail "fail_function does not take isocam_media_register (ALLOW_ERROR_INJECTION)"
	printf %#x -12 >"$FF/isocam_media_register/retval"
	echo 0 >"$FF/verbose"
	echo 100 >"$FF/probability"
	echo 1 >"$FF/interval"
	# The holder opens the adapter's node between its registration and
	# the failure; a lost race is retried, never counted as a pass.
	for try in 1 2 3; do
		echo 1 >"$FF/times"
		rm -f /tmp/ready /tmp/ready.polling /tmp/go
		python3 "$ISOCAM_ROOT/tests/vm/lib/holder.py" i2cfirst "isocam i2c" /tmp/ready /tmp/go \
			>"$RESULTS/holder-i2cfirst.log" 2>&1 &
		BG_PID=$!
		camera_track "$BG_PID"
		# (Python takes a while to start on the debug kernel.)
		wait_for "[ -e /tmp/ready.polling ]" 30 "the i2cfirst holder to poll"
		kmsg_mark "probe-unwind-$try"
		usbip_attach 1-1 || fail "usbip attach failed"
		# An unplug's teardown never waits for userspace: neither may this.
		wait_for "dmesg | kmsg_after_mark probe-unwind-$try | grep -q 'isocam.* failed with error -12'" 20 \
			"the failed probe to end"
		no_isocam_left || fail "the failed probe left isocam's sysfs or debugfs entries"
		! camera_video_node >/dev/null || fail "the failed probe left a video node"
		if [ -e /tmp/ready ]; then
			release i2cfirst
			held=$try
		else
			kill "$BG_PID"
			wait "$BG_PID" 2>/dev/null || true
			log "try $try: the holder did not open the adapter in time"
		fi
		detach_camera
		[ -z "$held" ] || break
	done
	echo "!isocam_media_register" >"$FF/inject"
	[ -n "$held" ] || fail "in 3 tries the holder never opened /dev/i2c-N before the probe failed"
	log "the failed probe ended with /dev/i2c-N held (try $held)"
	plug
	unplug
	stop_emu
}
if grep -q '^CONFIG_FAIL_FUNCTION=y' "$ISOCAM_KCONFIG"; then
	subtest "a probe that fails once its nodes are public unwinds as an unplug does" probe_unwinds
else
	log "not run: $ISOCAM_KVER has no CONFIG_FAIL_FUNCTION"
fi

subtests_done
step "clean rmmod"
unload_isocam_modules
modprobe -r vhci-hcd
log "61-driver-unplug-states: ok"
