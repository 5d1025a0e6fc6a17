#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Streaming: with the emulated camera attached,
#  - every format at every size the node offers captures three seconds
#    of frames (at least 30, at most 100) with MMAP whose counters,
#    checksums and pixels isocam-check finds right, with no frame lost,
#    at the fastest rate the link carries;
#  - USERPTR, DMABUF (vivid exporting the buffers) and read() deliver
#    correct frames too;
#  - the driver's debugfs counters agree: no error, dropped or bad frame;
#  - REQBUFS gives at least four buffers, however few are asked for;
#  - a consumer late on purpose loses frames only for want of a buffer:
#    the driver counts each as dropped, the sequence numbers it hands out
#    skip exactly those, and nothing is lost on the bus or by the camera.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl awk dd

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

cleanup() {
	set +e
	detach_camera
	stop_emu
}
trap cleanup EXIT

camera_start
driver_debugfs
log "camera at $NODE, counters in $DBG"

# The first stream after boot pays for TCG translating the code paths of
# v4l2-ctl, the emulator and the kernel; warm them up, unchecked.
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=30 --stream-to=/dev/null >/dev/null 2>&1 ||
	fail "warm-up capture failed"

# capture_check NAME FOURCC W H N V4L2-CTL-STREAM-OPTIONS...: capture N
# frames and verify every one (lib/driver.sh, capture_verify).
# Captures use 16 buffers: in an emulated guest the capturing program can
# stall long enough to leave the driver without a buffer with fewer.
capture_check() {
	local name=$1 fourcc=$2 w=$3 h=$4 n=$5
	shift 5
	capture_verify "$name" "$fourcc" "$w" "$h" "$n" "" "$@"
}

# --- MMAP: every format, every size ------------------------------------------
step "MMAP, every format and size"
v4l2-ctl -d "$NODE" --list-formats-ext >"$RESULTS/formats.txt"
# (No process substitution: the guest has no /dev/fd.)
read -r -a FOURCCS <<<"$(sed -n "s/^[[:space:]]*\[[0-9]*\]: '\(....\)'.*/\1/p" "$RESULTS/formats.txt" | tr '\n' ' ')"
assert_eq "${#FOURCCS[@]}" 4 "number of formats (the sensor's three, MJPEG)"
combos=0
for f in "${FOURCCS[@]}"; do
	read -r -a SIZES <<<"$(v4l2-ctl -d "$NODE" --list-framesizes="$f" |
		sed -n 's/.*Discrete \([0-9]*x[0-9]*\).*/\1/p' | tr '\n' ' ')"
	assert_ge "${#SIZES[@]}" 1 "sizes of $f"
	for s in "${SIZES[@]}"; do
		w=${s%x*}
		h=${s#*x}
		# The fastest rate offered: the first interval listed for the size.
		fps=$(v4l2-ctl -d "$NODE" --list-frameintervals="width=$w,height=$h,pixelformat=$f" |
			sed -n 's/.*(\([0-9.]*\) fps).*/\1/p' | head -n 1)
		[ -n "$fps" ] || fail "no frame interval for $f ${w}x$h"
		v4l2-ctl -d "$NODE" -v "width=$w,height=$h,pixelformat=$f" ||
			fail "set-fmt $f ${w}x$h"
		v4l2-ctl -d "$NODE" -p "${fps%.*}" >/dev/null || fail "set-parm ${fps%.*}"
		got=$(v4l2-ctl -d "$NODE" --get-fmt-video)
		assert_match "$got" "Width/Height[[:space:]]*: $w/$h" "$f ${w}x$h width/height"
		assert_match "$got" "Pixel Format[[:space:]]*: '$f'" "$f ${w}x$h pixel format"
		# Three seconds: 1280x960 at 5 fps is 30 frames, not 20 s.
		n=$((${fps%.*} * 3))
		[ "$n" -ge 30 ] || n=30
		[ "$n" -le 100 ] || n=100
		capture_check "mmap-$f-$s" "$f" "$w" "$h" "$n" --stream-mmap=16
		combos=$((combos + 1))
	done
done
assert_eq "$combos" 16 "format/size combinations streamed"

# --- the other I/O methods at the default 640x480 YUYV 30 fps ---------------
v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV || fail "set-fmt"
v4l2-ctl -d "$NODE" -p 30 >/dev/null || fail "set-parm 30"

step "USERPTR"
capture_check userptr YUYV 640 480 100 --stream-user=16

step "DMABUF, vivid exporting"
modprobe vivid n_devs=1 node_types=0x1
vivid_node() {
	local d
	for d in /sys/class/video4linux/video*; do
		[ "$(cat "$d/name" 2>/dev/null)" = vivid-000-vid-cap ] &&
			[ -c "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}
wait_for 'vivid_node >/dev/null' 10 "vivid's capture node"
VIVID=$(vivid_node)
# Exported buffers must hold our frames: 1280x720 YUYV > 640x480 YUYV.
v4l2-ctl -d "$VIVID" -v width=1280,height=720,pixelformat=YUYV || fail "vivid set-fmt"
capture_check dmabuf YUYV 640 480 100 --stream-dmabuf --export-device "$VIVID"
modprobe -r vivid

step "read()"
before=$(cam_stat frames)
# vb2's read() hands out at most one frame per call: bs = sizeimage.
dd if="$NODE" of=/tmp/read.raw bs=614400 count=50 2>"$RESULTS/dd.log" ||
	fail "dd from $NODE failed: $(cat "$RESULTS/dd.log")"
size=$(stat -c %s /tmp/read.raw)
assert_eq "$size" $((614400 * 50)) "bytes read"
"$CHECK" --quiet --format yuyv --size 640x480 --expect-frames 50 /tmp/read.raw \
	>"$RESULTS/read.check.log" 2>&1 || {
	cat "$RESULTS/read.check.log" >&2
	fail "read(): isocam-check found bad frames"
}
rm -f /tmp/read.raw
assert_ge "$(cam_stat frames)" $((before + 50)) "frames counted by the driver"
log "read: 50 frames ok ($(cat "$RESULTS/read.check.log"))"

step "a late consumer: every lost frame has its cause"
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
err0=$(cam_stat error_frames)
drop0=$(cam_stat dropped_frames)
cam0=$(emu_frames_dropped 1-1)
_is_int "$cam0" || fail "no frame count from the camera's status line"
# Two buffers asked for, four given (the driver's least), each held 150 ms
# (4.5 frame intervals at 30 fps).
r=$("$STREAM" -b 2 -l 150 -n 20 -t 10000 "$NODE") || fail "isocam-stream: $r"
log "late consumer: $r"
assert_match "$r" '^bufs=4 ' "buffers REQBUFS gives for two asked"
assert_match "$r" 'end=count' "the late consumer's stream"
missing=$(sed -n 's/.* missing=\([0-9]*\) .*/\1/p' <<<"$r")
drops=$(($(cam_stat dropped_frames) - drop0))
assert_ge "$missing" 20 "sequence numbers skipped while the consumer held both buffers"
# Every skipped number is a frame the driver dropped with no buffer (-l
# also dequeues the last queued buffer, so the numbers run up to the stop);
# one more may complete between that last DQBUF and STREAMOFF.
assert_ge "$drops" "$missing" "frames dropped for want of a buffer"
assert_le "$drops" $((missing + 1)) "frames dropped for want of a buffer"
assert_eq $(($(cam_stat error_frames) - err0)) 0 "frames lost or cut on the bus"
assert_eq $(($(emu_frames_dropped 1-1) - cam0)) 0 "frames the camera could not send"
log "late consumer: $missing sequence numbers skipped, $drops frames dropped for want of a buffer, none lost on the bus"

step "counters"
cat "$DBG/stats" | tee "$RESULTS/stats.txt"
assert_eq "$(cam_stat error_frames)" 0 "frames lost or cut on the bus"
assert_le "$(cam_stat stopped_frames)" "$(cam_stat streams)" "frames cut by a stop (at most one each)"
assert_eq "$(cam_stat bad_packets)" 0 "bad packets"
assert_eq "$(cam_stat urb_errors)" 0 "URB errors"
assert_eq "$(cam_stat alt)" 0 "alt after the last stream"
assert_ge "$(cam_stat frames)" $((30 + 12 * 100 + 2 * 100 + 50)) "good frames"

detach_camera
stop_emu
unload_isocam_modules
log "60-driver-stream: ok"
