#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 16, second part: isocam-emu --gadget=ffs, the camera as a real
# USB gadget (configfs + FunctionFS on dummy_hcd's UDC) instead of over
# USB/IP, with the bulk personality; isocam drives it through the guest's
# own dummy host controller:
#  - the emulator makes its configfs gadget and functionfs mount itself;
#    the device says what the USB/IP camera says (IDs, strings, speed);
#  - isocam binds it as bulk; 640x480 YUYV and 320x240 GREY capture
#    frames that isocam-check finds right, with nothing lost on the bus;
#  - stream stop/start cycles: each stop the sensor's standby (the
#    CLEAR_FEATURE after it is the UDC's), each start delivering, and the
#    next capture is clean (no transfer of an old stream leaks into it);
#  - unplug by stopping the emulator while streaming (it unbinds the
#    UDC): the reader gets ENODEV, nothing of the driver is left, and the
#    emulator leaves no configfs directory and no mount behind.
# vm-timeout: 900
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"

require_cmd v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
STREAM=$ISOCAM_BUILD/isocam-stream
UDC=dummy_udc.0
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
[ -x "$EMU_BIN" ] || fail "$EMU_BIN is not built (make)"

FFS_PID=
FFS_RUNS=0
# shellcheck disable=SC2317
_ffs_cleanup() {
	set +e
	_camera_cleanup
	if [ -n "$FFS_PID" ]; then
		kill -TERM "$FFS_PID" 2>/dev/null
		wait "$FFS_PID" 2>/dev/null
	fi
	modprobe -r dummy_hcd 2>/dev/null
	# guest-run.sh mounts configfs for every script
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	return 0
}
trap _ffs_cleanup EXIT

# ffs_start [ARGS...]: the gadget emulator on $UDC, and isocam bound to
# it through dummy_hcd's host side; sets NODE, INTF, DBG, FFS_LOG.
ffs_start() {
	FFS_RUNS=$((FFS_RUNS + 1))
	FFS_LOG=$RESULTS/isocam-emu-ffs-$FFS_RUNS.log
	"$EMU_BIN" --gadget=ffs --udc="$UDC" "$@" >"$FFS_LOG" 2>&1 &
	FFS_PID=$!
	log "isocam-emu --gadget=ffs --udc=$UDC $* (pid $FFS_PID, log $FFS_LOG)"
	wait_for "grep -q 'on UDC $UDC' '$FFS_LOG' || ! kill -0 $FFS_PID 2>/dev/null" 20 \
		"the gadget to bind"
	kill -0 "$FFS_PID" 2>/dev/null || { cat "$FFS_LOG" >&2; FFS_PID=; fail "isocam-emu --gadget=ffs exited at start"; }
	wait_for 'NODE=$(cam_node)' 30 "the isocam video node"
	driver_debugfs
}

# ffs_stop: SIGTERM the emulator (it unbinds the UDC: an unplug) and check
# it stopped cleanly.
ffs_stop() {
	local pid=$FFS_PID st=0
	FFS_PID=
	kill -TERM "$pid"
	wait "$pid" || st=$?
	[ "$st" = 0 ] || { tail -n 20 "$FFS_LOG" >&2; fail "isocam-emu --gadget=ffs exited with $st on SIGTERM"; }
	grep -q 'stopped' "$FFS_LOG" || fail "isocam-emu --gadget=ffs did not log a clean stop"
}

# no_gadget_left: no configfs gadget, functionfs mount or mount point of
# ours (configfs is mounted to look, if the emulator unmounted it).
no_gadget_left() {
	local d
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	for d in /sys/kernel/config/usb_gadget/isocam-* /tmp/isocam-ffs.*; do
		[ ! -e "$d" ] || { log "left behind: $d"; return 1; }
	done
	! grep -q ' functionfs ' /proc/mounts || { log "left behind: $(grep functionfs /proc/mounts)"; return 1; }
}

# ffs_status: a fresh status line of the gadget emulator (SIGUSR1).
ffs_status() {
	local n
	n=$(grep -c 'cam0 ffs ' "$FFS_LOG" || true)
	kill -USR1 "$FFS_PID" || fail "isocam-emu is gone"
	wait_for "[ \$(grep -c 'cam0 ffs ' '$FFS_LOG') -gt $n ]" 5 "the gadget's status line"
	grep 'cam0 ffs ' "$FFS_LOG" | tail -n 1 | sed 's/^isocam-emu\[[ 0-9.]*\]: //'
}

# capture_check FOURCC W H FPS N: N frames, every one verified.
capture_check() {
	local f=$1 w=$2 h=$3 fps=$4 n=$5 name t0 t1
	name=ffs-$f-${w}x$h-$fps
	v4l2-ctl -d "$NODE" -v "width=$w,height=$h,pixelformat=$f" || fail "set-fmt $f ${w}x$h"
	v4l2-ctl -d "$NODE" -p "$fps" >/dev/null || fail "set-parm $fps"
	t0=$(date +%s%N)
	capture_verify "$name" "$f" "$w" "$h" "$n" "" --stream-mmap=16
	t1=$(date +%s%N)
	log "$name: $n frames in $(((t1 - t0) / 1000000)) ms of guest time"
	bus_clean "$name"
}

# --- the gadget ----------------------------------------------------------------
step "the camera as a FunctionFS gadget on $UDC"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
modprobe dummy_hcd || fail "modprobe dummy_hcd"
wait_for "[ -e /sys/class/udc/$UDC ]" 10 "$UDC"
load_isocam_modules
# The first emulator mounts configfs itself (and unmounts it at exit); the
# second finds it mounted (as guest-run.sh leaves it) and leaves it.
! mountpoint -q /sys/kernel/config || umount /sys/kernel/config ||
	fail "cannot unmount configfs for the first run"
kmsg_mark "ffs plug"
ffs_start -v
grep -q 'ffs: mounted configfs' "$FFS_LOG" || fail "the emulator did not mount configfs itself"
log "camera at $NODE, counters in $DBG"
gadget=$(echo /sys/kernel/config/usb_gadget/isocam-*)
[ -d "$gadget" ] || fail "no configfs gadget directory"
assert_eq "$(cat "$gadget/UDC")" "$UDC" "the gadget's UDC"
assert_match "$(grep ' functionfs ' /proc/mounts)" "^isocam[0-9]* /tmp/isocam-ffs\\." "functionfs mount"
udev=$(dirname "$(readlink -f "$INTF")")
assert_eq "$(cat "$udev/idVendor"):$(cat "$udev/idProduct")" "$CAMERA_VID:$CAMERA_PID" "USB IDs"
assert_eq "$(cat "$udev/bcdDevice")" "0100" "bcdDevice"
assert_eq "$(cat "$udev/product")" "isocam IC1280 USB camera" "product string"
assert_eq "$(cat "$udev/manufacturer")" "isocam project" "manufacturer string"
assert_eq "$(cat "$udev/serial")" "ISOCAM0001" "serial"
assert_eq "$(cat "$udev/speed")" 480 "speed"
assert_eq "$(cat "$INTF/interface")" "isocam video" "interface string"
assert_eq "$(cat "$INTF/bInterfaceNumber")" 00 "interface number"
assert_eq "$(cam_stat transport)" bulk "debugfs transport"
kmsg_after_mark "ffs plug" <<<"$(dmesg)" >"$RESULTS/kmsg-plug.txt"
grep -q 'isocam IC1280 USB camera: ic1280.*, bulk endpoint 1, i2c' "$RESULTS/kmsg-plug.txt" ||
	fail "no probe line naming the bulk endpoint: $(grep isocam "$RESULTS/kmsg-plug.txt")"
v4l2-ctl -d "$NODE" -c brightness=20 || fail "set brightness"
assert_match "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 20" "brightness read back"
v4l2-ctl -d "$NODE" -c brightness=0 || fail "reset brightness"

# --- frames --------------------------------------------------------------------
step "frames through FunctionFS, every one checked"
# The first stream after boot pays for TCG translating its code paths.
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=30 --stream-to=/dev/null >/dev/null 2>&1 ||
	fail "warm-up capture failed"
capture_check YUYV 640 480 30 100
capture_check GREY 320 240 30 100
log "gadget: $(ffs_status)"

# --- start / stop --------------------------------------------------------------
step "stream stop/start cycles"
CYCLES=10
e0=$(cam_stat error_frames)
for i in $(seq "$CYCLES"); do
	r=$(timeout 60 "$STREAM" -n 3 -t 10000 "$NODE" 2>&1) || fail "cycle $i: isocam-stream: $r"
	[[ "$r" == *end=count* ]] || fail "cycle $i: the stream did not deliver 3 frames: $r"
done
assert_eq "$(cam_stat error_frames)" "$e0" "frames with errors in $CYCLES cycles"
bus_clean "start/stop"
# A long stream stopped mid-frame, then a checked capture: nothing of the
# old stream may leak into the new one.
"$STREAM" -n 1000000 -t 10000 "$NODE" >/tmp/ffs-long.txt 2>&1 &
pid=$!
camera_track "$pid"
f0=$(cam_stat frames)
wait_for '[ "$(cam_stat frames)" -ge $((f0 + 10)) ]' 30 "the long stream to run"
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
capture_check YUYV 640 480 30 60
st=$(ffs_status)
log "gadget after the cycles: $st"
[[ "$st" =~ ([0-9]+)\ cancelled ]] || fail "no cancelled count in the status line: $st"
log "transfers cancelled at stream stops: ${BASH_REMATCH[1]}"

# --- stop while idle --------------------------------------------------------
step "stop the emulator while idle: an unplug, and nothing left behind"
ffs_stop
wait_for no_isocam_left 20 "the driver's sysfs and debugfs entries to go"
[ ! -e "/sys/class/video4linux/${NODE#/dev/}" ] || fail "$NODE is still registered"
! mountpoint -q /sys/kernel/config || fail "the emulator left configfs mounted"
no_gadget_left || fail "the emulator left something behind"
grep -E 'ffs: (cannot remove|umount|rmdir|unbinding)' "$FFS_LOG" &&
	fail "the emulator's teardown complained"
log "$(grep -E 'shutting down|stopped' "$FFS_LOG" | sed 's/^isocam-emu\[[ 0-9.]*\]: //' | tr '\n' ' ')"

# --- unplug while streaming ----------------------------------------------------
step "a second gadget, unplugged (the emulator stops, the UDC is unbound) while streaming"
ffs_start
capture_check GREY 320 240 30 30
v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV || fail "set-fmt"
"$STREAM" -n 1000000 -t 10000 "$NODE" >/tmp/ffs-unplug.txt 2>&1 &
pid=$!
camera_track "$pid"
f0=$(cam_stat frames)
wait_for "[ \"\$(cam_stat frames 0)\" -ge $((f0 + 5)) ]" 30 "frames before the unplug"
ffs_stop
wait_for no_isocam_left 20 "the driver's sysfs and debugfs entries to go"
[ ! -e "/sys/class/video4linux/${NODE#/dev/}" ] || fail "$NODE is still registered"
no_gadget_left || fail "the second emulator left something behind"
mountpoint -q /sys/kernel/config || fail "the second emulator unmounted a configfs it did not mount"
reader_ended "$pid" /tmp/ffs-unplug.txt ENODEV 10 "unplugged while streaming"
# No function instance is left to hold usb_f_fs.
modprobe -r dummy_hcd usb_f_fs libcomposite || fail "modprobe -r dummy_hcd usb_f_fs libcomposite"
log "67-gadget-ffs: ok"
