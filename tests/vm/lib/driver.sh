# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest-side helpers for the isocam driver's scripts: where the bound
# interface, its video node and its debugfs counters are, plug/unplug
# cycles, isocam-check's format names and v4l2-compliance with the
# emulated machine's one allowance. Source after lib/base.sh and lib/camera.sh.
# Fork-light (TCG makes every fork cost): globs and builtins only.

# cam_intf: sysfs path of the interface isocam is bound to.
cam_intf() {
	local d
	for d in /sys/bus/usb/drivers/isocam/*:*; do
		[ -e "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}

# cam_node: /dev path of isocam's video node, once devtmpfs has it.
cam_node() {
	local v
	for v in /sys/bus/usb/drivers/isocam/*:*/video4linux/video*; do
		[ -e "$v" ] && [ -c "/dev/${v##*/}" ] && { echo "/dev/${v##*/}"; return 0; }
	done
	return 1
}

# cam_stat KEY [DEFAULT]: a counter from the driver's debugfs stats ($DBG).
# Without DEFAULT a missing counter fails the script; with it (for polling
# across an unplug) DEFAULT is printed instead.
cam_stat() {
	local k v
	if [ -r "$DBG/stats" ]; then
		while read -r k v; do
			[ "$k" = "$1:" ] && { echo "$v"; return 0; }
		done <"$DBG/stats"
	fi
	[ $# -ge 2 ] && { echo "$2"; return 0; }
	fail "no counter $1 in $DBG/stats"
}

# cam_i2c_node: /dev/i2c-N of the bound camera's adapter ($INTF; i2c-dev
# loaded).
cam_i2c_node() {
	local a
	for a in "$INTF"/i2c-*/i2c-dev/i2c-*; do
		[ -e "$a" ] && { echo "/dev/${a##*/}"; return 0; }
	done
	return 1
}

# cam_subdev: /dev/v4l-subdevN of the bound camera's sensor (its node's
# parent is the sensor's i2c client, on the camera's adapter).
cam_subdev() {
	local s
	for s in "$INTF"/i2c-*/*-003c/video4linux/v4l-subdev*; do
		[ -e "$s" ] && [ -c "/dev/${s##*/}" ] && { echo "/dev/${s##*/}"; return 0; }
	done
	return 1
}

# cam_media: /dev/mediaN of the bound camera. Media nodes sit on the
# "media" bus (there is no media class): the camera's is a child of its
# USB device (media_device_usb_init).
cam_media() {
	local m
	for m in "$(readlink -f "$INTF/..")"/media*; do
		[ -c "/dev/${m##*/}" ] && { echo "/dev/${m##*/}"; return 0; }
	done
	return 1
}

# unplug_during WHAT 'CMD': run the shell command CMD over and over in the
# background ($n counts the runs, so CMD can vary what it writes: the
# control framework skips writes of an unchanged value), unplug after 2 s,
# and check the loop ended with the camera. Logs how many times CMD ran.
unplug_during() {
	local what=$1 cmd=$2 pid
	rm -f /tmp/unplug-during-count
	(
		n=0
		while eval "$cmd" >/dev/null 2>&1; do n=$((n + 1)); done
		echo "$n" >/tmp/unplug-during-count
	) &
	pid=$!
	camera_track "$pid"
	sleep 2
	kill -0 "$pid" 2>/dev/null || fail "the $what loop ended before the unplug"
	unplug
	wait_for "! kill -0 $pid 2>/dev/null" 10 "the $what loop to end"
	assert_ge "$(cat /tmp/unplug-during-count)" 1 "$what before the unplug"
	log "$what before the unplug: $(cat /tmp/unplug-during-count)"
}

no_isocam_left() {
	local d
	for d in /sys/kernel/debug/usb/isocam-* /sys/bus/usb/drivers/isocam/*:*; do
		[ ! -e "$d" ] || return 1
	done
}

# driver_debugfs: debugfs mounted; INTF, DBG of the bound camera.
driver_debugfs() {
	is_mounted /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	INTF=$(cam_intf) || fail "no interface bound to isocam"
	DBG=/sys/kernel/debug/usb/isocam-${INTF##*/}
}

# driver_setup [EMU ARGS...]: debugfs, vhci-hcd and the modules loaded,
# the emulator started with ARGS, nothing attached yet (see plug).
driver_setup() {
	is_mounted /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	modprobe vhci-hcd
	load_isocam_modules
	start_emu "$@"
	wait_for '[ -d /sys/devices/platform/vhci_hcd.0 ]' 10 "vhci_hcd.0"
}

# plug: attach camera 1-1 (lib/camera.sh) and wait for the driver; sets
# NODE, INTF, DBG.
plug() {
	usbip_attach 1-1 || fail "usbip attach failed"
	wait_for 'NODE=$(cam_node)' 30 "the isocam video node"
	driver_debugfs
}

# unplug: detach the camera (lib/camera.sh) and wait until every trace of
# the driver is gone.
unplug() {
	detach_camera
	wait_for no_isocam_left 20 "the driver's sysfs and debugfs entries to go"
	[ ! -e "/sys/class/video4linux/${NODE#/dev/}" ] || fail "$NODE is still registered"
}

# stamps_camera_start: the camera at 640x480 YUYV 30 fps, warmed up, for
# the timestamp test and benchmark; sets NODE, DBG and HWTS (the writable
# hwtimestamps parameter, put back to Y when the script exits).
stamps_camera_start() {
	HWTS=/sys/module/isocam/parameters/hwtimestamps
	# shellcheck disable=SC2317
	_stamps_cleanup() {
		set +e
		[ ! -w "$HWTS" ] || echo Y >"$HWTS"
		detach_camera
		stop_emu
	}
	trap _stamps_cleanup EXIT
	camera_start_vga
	[ -w "$HWTS" ] || fail "no writable $HWTS"
}

# camera_start_vga [EMU ARGS...]: camera_start, then 640x480 YUYV at 30 fps
# and 30 frames streamed unmeasured (the first stream after boot pays for
# TCG translating its code paths); sets NODE, INTF, DBG.
# shellcheck disable=SC2120 # the scripts that source this pass ARGS
camera_start_vga() {
	camera_start "$@"
	driver_debugfs
	v4l2-ctl -d "$NODE" --set-fmt-video=width=640,height=480,pixelformat=YUYV \
		--set-parm=30 >/dev/null || fail "cannot set 640x480 YUYV at 30 fps"
	"$ISOCAM_BUILD/isocam-stream" -b 8 -n 30 -t 10000 "$NODE" >/dev/null ||
		fail "warm-up stream failed"
}

# hold MODE PATH: start tests/vm/lib/holder.py MODE on PATH in the background
# ($BG_PID) and wait until it is set up; release MODE: let it check what
# it holds (after an unplug) and fail the script if it saw something wrong.
hold() {
	rm -f /tmp/ready /tmp/go
	python3 "$ISOCAM_ROOT/tests/vm/lib/holder.py" "$1" "$2" /tmp/ready /tmp/go \
		>"$RESULTS/holder-$1.log" 2>&1 &
	BG_PID=$!
	camera_track "$BG_PID"
	wait_for '[ -e /tmp/ready ] || ! kill -0 $BG_PID 2>/dev/null' 20 "the $1 holder"
	[ -e /tmp/ready ] || { cat "$RESULTS/holder-$1.log" >&2; fail "the $1 holder failed before the unplug"; }
}

release() {
	touch /tmp/go
	wait "$BG_PID" || { cat "$RESULTS/holder-$1.log" >&2; fail "the $1 holder saw something wrong"; }
	log "$(cat "$RESULTS/holder-$1.log")"
}

# hold_as TAG MODE PATH / release_as TAG: hold and release, for several
# holders at once (each with its own ready and go files, named by TAG).
declare -A HOLDER_PID
hold_as() {
	local tag=$1 mode=$2 path=$3 pid
	rm -f "/tmp/ready-$tag" "/tmp/go-$tag"
	python3 "$ISOCAM_ROOT/tests/vm/lib/holder.py" "$mode" "$path" \
		"/tmp/ready-$tag" "/tmp/go-$tag" >"$RESULTS/holder-$tag.log" 2>&1 &
	pid=$!
	HOLDER_PID[$tag]=$pid
	camera_track "$pid"
	wait_for "[ -e /tmp/ready-$tag ] || ! kill -0 $pid 2>/dev/null" 20 "the $tag holder"
	[ -e "/tmp/ready-$tag" ] || { cat "$RESULTS/holder-$tag.log" >&2; fail "the $tag holder failed before the unplug"; }
}

release_as() {
	local tag=$1 line
	touch "/tmp/go-$tag"
	wait "${HOLDER_PID[$tag]}" || { cat "$RESULTS/holder-$tag.log" >&2; fail "the $tag holder saw something wrong"; }
	read -r line <"$RESULTS/holder-$tag.log"
	log "$line"
}

# field KEY LINE: KEY's number in an isocam-stream summary LINE.
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

# stamps_fps FILE: frames a second between the first and the last DQBUF of
# an isocam-stream -T FILE.
stamps_fps() {
	awk '$1 != "E" { if (!n++) t0 = $3; t = $3 }
		END { printf "%.2f", (n > 1 ? (n - 1) / ((t - t0) / 1e9) : 0) }' "$1"
}

# check_fmt FOURCC: isocam-check's name for it.
check_fmt() {
	case "$1" in
	YUYV) echo yuyv ;;
	RGBP) echo rgb565 ;;
	GREY) echo grey ;;
	MJPG) echo mjpeg ;;
	*) fail "no isocam-check format for $1" ;;
	esac
}

# check_gaps LOG: the frames isocam-check counted as missing in LOG (its
# last summary line, "..., N dropped, ..."); empty if it has none.
check_gaps() {
	sed -n 's/.*, \([0-9]*\) dropped, .*/\1/p' "$1" | tail -n 1
}

# capture_camera_dropped NAME FOURCC W H N COUNTER...: capture_verify N
# frames of the current format (--allow-drops, --stream-mmap=16), where a
# frame missing passes only as one the camera itself says it could not
# send over the same capture: COUNTER... is the command that prints the
# camera's running count (emu_frames_dropped PORT, ffs_frames_dropped). A
# guest too slow for the camera's userspace is not the driver losing a
# frame. Logs the capture's guest time (the counter's reads, a signal and
# a wait each, outside it) and both counts.
capture_camera_dropped() {
	local name=$1 fourcc=$2 w=$3 h=$4 n=$5 cam0 cam gaps t0 ms
	shift 5
	cam0=$("$@")
	t0=${EPOCHREALTIME/./}
	capture_verify "$name" "$fourcc" "$w" "$h" "$n" --allow-drops --stream-mmap=16
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	cam=$(($("$@") - cam0))
	gaps=$(check_gaps "$RESULTS/$name.check.log")
	[ -n "$gaps" ] || fail "$name: no dropped count from isocam-check: $(cat "$RESULTS/$name.check.log")"
	[ "$gaps" -le "$cam" ] ||
		fail "$name: $gaps frames missing from the capture, the camera could not send $cam"
	log "$name: $n frames in $ms ms of guest time; $gaps missing (the camera could not send $cam)"
}

# capture_verify NAME FOURCC W H N CHECK-OPTIONS V4L2-CTL-STREAM-OPTIONS...:
# capture N frames of the current format into guest RAM, have isocam-check
# verify every one of them (CHECK-OPTIONS: more of its options, split on
# spaces, may be ""), and check the driver's counters: none lost or cut on
# the bus; the frame in flight at STREAMOFF may be cut by the stop, or
# dropped (v4l2-ctl queues nothing after its last), never delivered as good
# (isocam-check saw exactly N good frames). Logs isocam-check's summary.
capture_verify() {
	local name=$1 fourcc=$2 w=$3 h=$4 n=$5 opts=$6 out before_err before_late
	shift 6
	out=/tmp/$name.raw
	before_err=$(cam_stat error_frames)
	before_late=$(($(cam_stat dropped_frames) + $(cam_stat stopped_frames)))
	v4l2-ctl -d "$NODE" "$@" --stream-count="$n" --stream-to="$out" \
		>"$RESULTS/$name.v4l2-ctl.log" 2>&1 ||
		fail "$name: v4l2-ctl failed: $(tail -n 3 "$RESULTS/$name.v4l2-ctl.log")"
	# shellcheck disable=SC2086 # CHECK-OPTIONS are words
	if ! "$ISOCAM_BUILD/isocam-check" --quiet --format "$(check_fmt "$fourcc")" \
		--size "${w}x$h" --expect-frames "$n" $opts "$out" \
		>"$RESULTS/$name.check.log" 2>&1; then
		cat "$RESULTS/$name.check.log" >&2
		cat "$DBG/stats" >&2
		rm -f "$out"
		fail "$name: isocam-check found bad frames"
	fi
	rm -f "$out"
	assert_eq "$(cam_stat error_frames)" "$before_err" "$name: frames lost or cut on the bus"
	assert_le $(($(cam_stat dropped_frames) + $(cam_stat stopped_frames))) \
		$((before_late + 1)) "$name: frames dropped or cut by the stop"
	log "$name: $n frames ${w}x$h $fourcc ok ($(cat "$RESULTS/$name.check.log"))"
}

# streamer_and_idle_holder LOG: two processes hold the node, one streaming
# (v4l2-ctl, STREAM_PID, its output in LOG), one idle (HOLD_PID), both
# running when this returns.
streamer_and_idle_holder() {
	v4l2-ctl -d "$NODE" --stream-mmap --stream-count=1000000 >"$1" 2>&1 &
	STREAM_PID=$!
	camera_track "$STREAM_PID"
	wait_for '[ "$(cam_stat alt)" != 0 ] && [ "$(cam_stat frames)" -gt 3 ]' 20 "the stream to run"
	# (the idle one: a shell that opens the node and sleeps)
	bash -c 'exec 3<"$1"; exec sleep 600' hold "$NODE" &
	HOLD_PID=$!
	camera_track "$HOLD_PID"
	wait_for "holds_open $HOLD_PID $NODE" 10 "the second process to open $NODE"
}

# s_fmt_refused_while_streaming: another process may not change the
# format under a stream (EBUSY), and the 320x240 set before stays.
s_fmt_refused_while_streaming() {
	local out
	set +e
	out=$(v4l2-ctl -d "$NODE" --set-fmt-video=width=160,height=120 2>&1)
	set -e
	assert_match "$out" "Device or resource busy" "S_FMT while another process streams"
	assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" "Width/Height[[:space:]]*: 320/240" \
		"size after a refused S_FMT"
}

# stream_stopped_since ALTS: the stream's last handle closed after the
# camera had seen the alt settings ALTS (emu_alts; isocam-emu -v): it sees
# one more change, to alt 0, the driver is at alt 0 and no frame comes.
stream_stopped_since() {
	local last f1
	wait_for "[ \"\$(emu_alts)\" != \"$1\" ]" 5 "the camera to see an alt change"
	last=$(emu_alts)
	last=${last% }
	assert_eq "${last##* }" 0 "the camera's alt setting after the streamer closed"
	assert_eq "$(cam_stat alt)" 0 "the driver's alt setting"
	f1=$(cam_stat frames)
	sleep 0.5
	assert_eq "$(cam_stat frames)" "$f1" "frames after the stream stopped"
}

# bus_clean WHAT: nothing lost on the bus or refused by the driver so far.
bus_clean() {
	local k
	for k in urb_errors bad_urbs resubmit_errors bad_packets bad_descs \
		stream_failures bulk_halts bus_errors; do
		assert_eq "$(cam_stat $k)" 0 "$1: $k"
	done
}

# reader_ended PID OUT ERRNO SECONDS WHAT: the isocam-stream reader PID
# (its summary in OUT) ends within SECONDS, exits 0 and says it stopped on
# ERRNO.
reader_ended() {
	local pid=$1 out=$2 errno=$3 what=$5 st=0 r
	wait_for "! kill -0 $pid 2>/dev/null" "$4" "$what: the reader to end"
	wait "$pid" || st=$?
	r=$(cat "$out")
	log "$what: status $st: $r"
	assert_eq "$st" 0 "$what: isocam-stream's exit status"
	[[ "$r" == *errno=$errno* ]] || fail "$what: the reader did not get $errno: $r"
}

# driver_compliance LOG: v4l2-compliance -s -f on $NODE (run_compliance
# sets status, summary, total, succeeded, failed, warnings; COMPLIANCE_LOG
# is the log of the run they come from). One allowance, for the emulated
# machine's sake: when every warning is a frame sequence gap and the
# driver counted that many frames dropped for want of a queued buffer,
# v4l2-compliance was too slow to requeue (it asks for two buffers). That
# is the host, not the driver: it runs again, once. The last run must
# then be clean (0 failed, 0 warnings, every test of at least 100
# succeeded, exit status 0) and have streamed with MMAP and read().
# -f streams each format, size and interval COMPLIANCE_FORMAT_FRAMES
# frames, not its default second: six frames show a combination streams
# with sane sequence numbers and timestamps, and of some 95 combinations
# a second each was two thirds of the script's guest time.
COMPLIANCE_FORMAT_FRAMES=6
_driver_compliance_run() {
	run_compliance "$1" "isocam device $NODE:" -d "$NODE" -s \
		--stream-all-formats="$COMPLIANCE_FORMAT_FRAMES"
}
# (run_compliance, in lib/base.sh, sets total, succeeded, failed, warnings
# and status.)
# shellcheck disable=SC2154
driver_compliance() {
	local drops0 gaps drops
	COMPLIANCE_LOG=$1
	drops0=$(cam_stat dropped_frames)
	_driver_compliance_run "$COMPLIANCE_LOG"
	gaps=$(grep -aoE 'warn: [^	]*' "$COMPLIANCE_LOG" | grep -c 'got sequence number' || true)
	drops=$(($(cam_stat dropped_frames) - drops0))
	if [ "$failed" = 0 ] && [ "$warnings" -gt 0 ] && [ "$gaps" = "$warnings" ] &&
		[ "$drops" -ge "$gaps" ]; then
		log "$gaps sequence gap(s), $drops frame(s) dropped with no buffer queued: v4l2-compliance fell behind; once more"
		COMPLIANCE_LOG=${1%.log}-2.log
		_driver_compliance_run "$COMPLIANCE_LOG"
	fi
	assert_eq "$failed" 0 "v4l2-compliance failures"
	assert_eq "$warnings" 0 "v4l2-compliance warnings"
	assert_eq "$succeeded" "$total" "v4l2-compliance tests succeeded"
	assert_ge "$total" 100 "v4l2-compliance test count"
	assert_eq "$status" 0 "v4l2-compliance exit status"
	# 1.22 says "(no poll)", 1.32 "(no poll, REQBUFS)".
	grep -qE 'test MMAP \(no poll(, REQBUFS)?\): OK' "$COMPLIANCE_LOG" || fail "MMAP streaming was not tested"
	grep -q 'test read/write: OK' "$COMPLIANCE_LOG" || fail "read() was not tested"
}
