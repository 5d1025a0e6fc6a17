#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# isocam drives the camera's bulk personality
# (isocam-emu --transport=bulk; include/isocam/usb.h, "Bulk transport
# personality"):
#  - the driver binds it as bulk: debugfs says "transport: bulk", alt 0
#    is the only one and never changes; the sensor's controls and the
#    bridge's i2c adapter work as over iso; the frame rates offered are
#    what high-speed bulk carries;
#  - YUYV, GREY, RGB565 and MJPEG capture frames that isocam-check finds
#    right, with nothing lost on the bus;
#  - a payload transfer lost on the way costs its frame, not the stream;
#  - v4l2-compliance -s -f: 0 failed, 0 warnings;
#  - the seed's manners: open() changes nothing, a second handle may be
#    open while one streams, closing it keeps the stream running, closing
#    the streaming one stops it with CLEAR_FEATURE(ENDPOINT_HALT);
#  - start/stop cycles, one with STREAMON failing halfway, each stop a
#    halt cleared and each start delivering;
#  - a camera gone silent (its sensor put in standby behind the driver's
#    back: bulk URBs then wait forever) ends the stream with EIO after
#    stall_ms and one dev_err; STREAMOFF recovers;
#  - unplug while streaming: the reader gets ENODEV, nothing is left
#    behind, and the camera works when plugged again.
# Each is a KTAP subtest; the plugs they look at happen between them, and
# one that fails ends what it started.
# vm-timeout: 2400
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl v4l2-compliance usbip i2ctransfer

CHECK=$ISOCAM_BUILD/isocam-check
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

# kmsg_since MARK: the kernel log since kmsg_mark MARK, in $RESULTS/kmsg.txt
# (grep the file: grep -q on a pipe would fail it under pipefail).
kmsg_since() { dmesg | sed -n "/isocam-test: $1/,\$p" >"$RESULTS/kmsg.txt"; }
# halts: how many CLEAR_FEATURE(ENDPOINT_HALT) the camera has seen (-v).
halts() { grep -c ': endpoint 0x81 halt cleared' "$CAMERA_EMU_LOG" || true; }

# capture_check FOURCC W H FPS N: N frames with MMAP at FPS, every one
# verified (lib/driver.sh, capture_verify), and nothing lost on the bus or
# refused by the driver. Over bulk the camera, like a real bridge with a
# one-frame buffer, drops a frame the host has not fetched when the next
# is due: a gap passes only as such a frame (capture_camera_dropped). The
# debug kernel's guest does not keep 640x480 YUYV at 30 fps (18 MB/s)
# without a few, while the driver's own work is 23 us a URB.
capture_check() {
	local f=$1 w=$2 h=$3 fps=$4 n=$5 name
	name=bulk-$f-${w}x$h-$fps
	v4l2-ctl -d "$NODE" -v "width=$w,height=$h,pixelformat=$f" || fail "set-fmt $f ${w}x$h"
	v4l2-ctl -d "$NODE" -p "$fps" >/dev/null || fail "set-parm $fps"
	assert_match "$(v4l2-ctl -d "$NODE" -P)" "Frames per second: $fps\\.000" "$name: frame rate"
	if [ "$f" = MJPG ]; then
		# The camera primes its encoder for a new picture first, frozen
		# for that long in this guest; over bulk, as a real bridge with a
		# one-frame buffer would, it drops the frames due meanwhile.
		v4l2-ctl -d "$NODE" --stream-mmap=16 --stream-count=10 --stream-to=/dev/null \
			>/dev/null 2>&1 || fail "$name: warm-up capture failed"
		STREAMS=$((STREAMS + 1))
	fi
	capture_camera_dropped "$name" "$f" "$w" "$h" "$n" emu_frames_dropped 1-1
	STREAMS=$((STREAMS + 1))
	bus_clean "$name"
}

driver_setup -v --transport=bulk
kmsg_mark "bulk plug"
plug
log "camera at $NODE, counters in $DBG"
modprobe i2c-dev
wait_for 'I2CDEV=$(cam_i2c_node)' 10 "the bridge's /dev/i2c-N"
wait_for "[ -c $I2CDEV ]" 10 "$I2CDEV in devtmpfs"
STREAMS=0	# streams capture_check started (each subtest its own count)

# reap_on_exit: the processes a subtest tracks (camera_track) after this
# call end with it, also when it fails, and are waited for: what their
# close does (a stream off, its halt cleared) is done before the next
# subtest counts.
reap_on_exit() {
	# shellcheck disable=SC2064 # the count now, the pids at exit
	trap "set +e; p=(\"\${_camera_pids[@]:${#_camera_pids[@]}}\"); [ \${#p[@]} = 0 ] || { kill \"\${p[@]}\"; wait \"\${p[@]}\"; } 2>/dev/null; true" EXIT
}

# --- bound as bulk -----------------------------------------------------------
bound_as_bulk() {
	local c id fps
	assert_eq "$(cam_stat transport)" bulk "debugfs transport"
	assert_eq "$(cam_stat alt)" 0 "alt while idle"
	assert_eq "$(cat "$DBG/alts")" "0 0" "debugfs alts: alt 0 alone, no iso bandwidth"
	kmsg_since "bulk plug"
	grep -q 'isocam IC1280 USB camera: ic1280.*, bulk endpoint 1, i2c' "$RESULTS/kmsg.txt" ||
		fail "no probe line naming the bulk endpoint: $(grep isocam "$RESULTS/kmsg.txt")"
	! grep -E 'isocam.*(refusing|needs a high-speed)' "$RESULTS/kmsg.txt" ||
		fail "the driver complained about the bulk descriptors"
	v4l2-ctl -d "$NODE" --all >"$RESULTS/all.txt" 2>&1 || fail "v4l2-ctl --all failed"
	assert_match "$(cat "$RESULTS/all.txt")" "Driver name[[:space:]]*: isocam" "driver name"
	for c in brightness contrast test_pattern; do
		grep -q "^ *$c 0x" "$RESULTS/all.txt" || fail "control $c is not on the video node"
	done
	v4l2-ctl -d "$NODE" -c brightness=20 || fail "set brightness"
	assert_match "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 20" "brightness read back"
	v4l2-ctl -d "$NODE" -c brightness=0 || fail "reset brightness"
	id=$(i2ctransfer -f -y "${I2CDEV#/dev/i2c-}" w2@0x3c 0x00 0x00 r2) || fail "i2ctransfer chip id failed"
	assert_eq "$id" "0x12 0x80" "chip id through $I2CDEV"
	# High-speed bulk carries 53 MB/s at most (13 x 512 bytes a
	# microframe): 1280x960 YUYV (2.4 MB a frame) at 20 fps but not 25;
	# iso's largest alt carries less.
	fps=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=1280,height=960,pixelformat=YUYV |
		sed -n 's/.*(\([0-9.]*\) fps).*/\1/p' | head -n 1)
	assert_eq "$fps" "20.000" "fastest 1280x960 YUYV rate over bulk"
	fps=$(v4l2-ctl -d "$NODE" --list-frameintervals=width=640,height=480,pixelformat=YUYV |
		sed -n 's/.*(\([0-9.]*\) fps).*/\1/p' | head -n 1)
	assert_eq "$fps" "60.000" "fastest 640x480 YUYV rate over bulk"
}
subtest "bound as the bulk personality" bound_as_bulk

# --- frames ------------------------------------------------------------------
formats_checked() {
	local h0
	h0=$(halts)
	capture_check YUYV 640 480 30 100
	capture_check GREY 320 240 30 100
	capture_check RGBP 640 480 30 60
	capture_check MJPG 1280 960 30 60
	capture_check YUYV 160 120 60 100
	# 49 MB/s: an emulated guest may not keep up, and the camera drops
	# whole frames, but every frame that comes is right and the bus loses
	# nothing.
	capture_check YUYV 1280 960 20 30
	wait_for '[ $(($(halts) - h0)) -ge $STREAMS ]' 5 "$STREAMS halts cleared"
	assert_eq $(($(halts) - h0)) "$STREAMS" "halts cleared: one per stream off"
	assert_eq "$(emu_alts | tr -d ' 0')" "" "alt settings the camera saw (0 only)"
}
# The first stream after boot pays for TCG translating its code paths.
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=30 --stream-to=/dev/null >/dev/null 2>&1 ||
	fail "warm-up capture failed"
subtest "formats over bulk, every frame checked" formats_checked

# --- v4l2-compliance ---------------------------------------------------------
compliance_over_bulk() {
	local streamed
	v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV || fail "set-fmt"
	v4l2-ctl -d "$NODE" -p 30 >/dev/null || fail "set-parm 30"
	# As in 60-driver-compliance (lib/driver.sh: a clean run, one rerun
	# allowed when v4l2-compliance fell behind in the emulated machine).
	driver_compliance "$RESULTS/v4l2-compliance.log"
	streamed=$(grep -a -c 'test MMAP for Format .*, Frame Size ' "$COMPLIANCE_LOG" || true)
	assert_ge "$streamed" 60 "combinations v4l2-compliance -f streamed"
	assert_eq "$(cam_stat stream_failures)" 0 "streams ended by the driver during compliance"
	log "v4l2-compliance: $summary; -f streamed $streamed combinations"
}
subtest "v4l2-compliance -s -f over bulk" compliance_over_bulk

# --- the seed's manners ------------------------------------------------------
manners_over_bulk() {
	local s0 f0 f1 f2 h0 out
	reap_on_exit
	v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV || fail "set-fmt"
	v4l2-ctl -d "$NODE" -p 30 >/dev/null || fail "set-parm 30"
	s0=$(cam_stat streams)
	f0=$(cam_stat frames)
	h0=$(halts)
	bash -c 'exec 3<"$1"; exec sleep 1' open-only "$NODE" || fail "open and close of $NODE"
	assert_eq "$(cam_stat streams)" "$s0" "streams after an open and close"
	assert_eq "$(cam_stat frames)" "$f0" "frames after an open and close"
	assert_eq "$(halts)" "$h0" "halts cleared after an open and close"

	"$STREAM" -n 1000000 -t 10000 "$NODE" >"$RESULTS/manners-stream.txt" 2>&1 &
	STREAM_PID=$!
	camera_track "$STREAM_PID"
	wait_for '[ "$(cam_stat frames)" -gt $((f0 + 3)) ]' 20 "the stream to run"
	bash -c 'exec 3<"$1"; exec sleep 600' hold "$NODE" &
	HOLD_PID=$!
	camera_track "$HOLD_PID"
	wait_for "holds_open $HOLD_PID $NODE" 10 "the second handle on $NODE"
	set +e
	out=$(v4l2-ctl -d "$NODE" --set-fmt-video=width=160,height=120 2>&1)
	set -e
	assert_match "$out" "Device or resource busy" "S_FMT from a third handle while one streams"
	kill "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null || true
	f1=$(cam_stat frames)
	sleep 1
	f2=$(cam_stat frames)
	assert_ge "$((f2 - f1))" 10 "frames in the second after the idle handle closed"
	assert_eq "$(halts)" "$h0" "halts cleared when the idle handle closed"
	kill -0 "$STREAM_PID" || fail "the streaming process died: $(cat "$RESULTS/manners-stream.txt")"
	kill -TERM "$STREAM_PID"
	wait "$STREAM_PID" 2>/dev/null || true
	wait_for '[ "$(halts)" -gt "$h0" ]' 5 "the camera to see the stream off (halt cleared)"
	f1=$(cam_stat frames)
	sleep 0.5
	assert_eq "$(cam_stat frames)" "$f1" "frames after the streamer closed"
	assert_eq "$(cam_stat alt)" 0 "alt after the streamer closed"
	bus_clean "manners"
}
subtest "the seed's manners over bulk" manners_over_bulk

# --- start / stop ------------------------------------------------------------
start_stop_cycles() {
	local cycles=20 h0 i r
	trap 'set +e; echo 0 >"$DBG/sim_submit_fail_at"' EXIT
	h0=$(halts)
	for i in $(seq "$cycles"); do
		if [ "$i" = 10 ]; then
			# STREAMON fails with bulk URBs already in flight.
			echo 5 >"$DBG/sim_submit_fail_at"
			r=$("$STREAM" -n 3 -t 10000 "$NODE" 2>&1)
			echo 0 >"$DBG/sim_submit_fail_at"
			[[ "$r" == *end=streamon*errno=ENOMEM* ]] ||
				fail "cycle $i: STREAMON with URB 5 failing did not fail with ENOMEM: $r"
		fi
		r=$(timeout 60 "$STREAM" -n 3 -t 10000 "$NODE" 2>&1) || fail "cycle $i: isocam-stream: $r"
		[[ "$r" == *end=count* ]] || fail "cycle $i: the stream did not deliver 3 frames: $r"
	done
	# Every stop, the failed start's too, told the camera.
	wait_for '[ $(($(halts) - h0)) -ge $((cycles + 1)) ]' 5 "the last halt cleared"
	assert_eq $(($(halts) - h0)) $((cycles + 1)) "halts cleared in $cycles cycles and one failed start"
	bus_clean "start/stop"
	kmsg_since "bulk plug"
	! grep 'CLEAR_FEATURE(ENDPOINT_HALT).*failed' "$RESULTS/kmsg.txt" ||
		fail "a stream off's CLEAR_FEATURE failed"
	# (bmRequestType 0x02, bRequest 0x01: CLEAR_FEATURE to an endpoint)
	! grep 'STALL bmRequestType 0x02 bRequest 0x01' "$CAMERA_EMU_LOG" ||
		fail "the camera STALLed a CLEAR_FEATURE(ENDPOINT_HALT)"
	log "$cycles start/stop cycles and one failed start, each stop a halt cleared"
}
subtest "start/stop cycles over bulk, each stop a halt cleared" start_stop_cycles

# --- a silent camera ---------------------------------------------------------
silent_camera() {
	local f0 pid r
	reap_on_exit
	v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV || fail "set-fmt"
	f0=$(cam_stat frames)
	kmsg_mark "bulk silent"
	"$STREAM" -n 1000000 -t 10000 "$NODE" >/tmp/silent-stream.txt 2>&1 &
	pid=$!
	camera_track "$pid"
	wait_for '[ "$(cam_stat frames)" -ge $((f0 + 5)) ]' 20 "the stream to run"
	# MODE_SELECT (0x0100) = standby, straight to the sensor: the camera
	# sends nothing more and the driver's URBs stay queued.
	i2ctransfer -f -y "${I2CDEV#/dev/i2c-}" w3@0x3c 0x01 0x00 0x00 || fail "i2c write of MODE_SELECT"
	reader_ended "$pid" /tmp/silent-stream.txt EIO 15 "silent camera"
	kmsg_since "bulk silent"
	grep 'stream stopped: no frame for' "$RESULTS/kmsg.txt" >"$RESULTS/silent.txt" ||
		fail "no dev_err saying why the stream stopped"
	assert_eq "$(wc -l <"$RESULTS/silent.txt")" 1 "dev_err lines about the stall"
	log "$(sed 's/^\[[ 0-9.]*\] //' "$RESULTS/silent.txt")"
	assert_eq "$(cam_stat stream_failures)" 1 "streams the driver ended"
	r=$(timeout 60 "$STREAM" -n 10 -t 10000 "$NODE" 2>&1) || fail "isocam-stream after the stall: $r"
	[[ "$r" == *end=count* ]] || fail "the next stream after a stall did not deliver: $r"
}
subtest "a silent camera: the watchdog ends the stream, STREAMOFF recovers" silent_camera

# --- unplug ------------------------------------------------------------------
# Ends unplugged; the plug after it gives the script the node again.
unplug_while_streaming() {
	local sizes i w h f pid
	reap_on_exit
	sizes=("640 480 YUYV" "320 240 GREY" "1280 960 MJPG" "640 480 RGBP")
	for i in 1 2 3 4; do
		read -r w h f <<<"${sizes[$((i - 1))]}"
		v4l2-ctl -d "$NODE" -v "width=$w,height=$h,pixelformat=$f" || fail "set-fmt $f"
		"$STREAM" -n 1000000 -t 10000 "$NODE" >/tmp/unplug-stream.txt 2>&1 &
		pid=$!
		camera_track "$pid"
		wait_for '[ "$(cam_stat frames 0)" -ge 5 ]' 30 "cycle $i: frames"
		sleep "0.$((i * 37 % 10))"
		unplug
		reader_ended "$pid" /tmp/unplug-stream.txt ENODEV 5 "cycle $i: $f ${w}x$h unplugged"
		no_isocam_left || fail "cycle $i: something of the driver is left"
		plug
		assert_eq "$(cam_stat transport)" bulk "cycle $i: transport after a new plug"
	done
	unplug
}
subtest "unplug while streaming over bulk: ENODEV, nothing left" unplug_while_streaming

works_after_the_unplugs() {
	capture_check YUYV 640 480 30 60
}
[ -z "$(_vhci_used_ports)" ] || detach_camera
plug
subtest "the camera works after the unplugs" works_after_the_unplugs
unplug

# --- a lost payload transfer -------------------------------------------------
lost_payload() {
	local r good errs
	r=$("$STREAM" -n 60 -t 10000 "$NODE" 2>&1) || fail "isocam-stream with lost transfers: $r"
	log "with a transfer in 40 lost: $r"
	[[ "$r" == *end=count* ]] || fail "the stream did not go on with lost transfers: $r"
	good=$(field good "$r")
	errs=$(field error "$r")
	assert_ge "$errs" 1 "frames flagged bad for a lost transfer"
	assert_ge "$good" 1 "good frames between the lost transfers"
	assert_eq "$(cam_stat stream_failures)" 0 "streams ended by the driver"
}
stop_emu
start_emu -v --transport=bulk --fault=drop=1/40
plug
subtest "a lost payload transfer costs its frame, not the stream" lost_payload
unplug
stop_emu
subtests_done
log "66-driver-bulk: ok"
