#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# isocam-emu --gadget=ffs, the camera as a real
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
#  - the same gadget exported by the kernel's usbip-host (usbip bind,
#    usbipd) and attached through vhci: isocam lets go of the direct
#    device, binds the vhci one, captures checked frames, and a vhci
#    detach while streaming is an unplug (ENODEV); usbip unbind gives the
#    device back to isocam directly;
#  - unplug by stopping the emulator while streaming (it unbinds the
#    UDC): the reader gets ENODEV, nothing of the driver is left, and the
#    emulator leaves no configfs directory and no mount behind.
# vm-timeout: 900
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/gadget.sh"

require_cmd v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
[ -x "$EMU_BIN" ] || fail "$EMU_BIN is not built (make)"

USBIPD_PID=
USBIPD_PORT=3241
BUSID=
# shellcheck disable=SC2317
_ffs_cleanup() {
	set +e
	_camera_cleanup
	if [ -n "$USBIPD_PID" ]; then
		[ -z "$BUSID" ] || usbip unbind -b "$BUSID" >/dev/null 2>&1
		kill -TERM "$USBIPD_PID" 2>/dev/null
		wait "$USBIPD_PID" 2>/dev/null
	fi
	gadget_cleanup
}
trap _ffs_cleanup EXIT

# capture_check FOURCC W H FPS N: N frames, every one verified; a gap
# passes only as a frame the gadget says it could not send
# (capture_camera_dropped: the debug kernel carries 640x480 YUYV at 30 fps
# through FunctionFS with a frame or two to spare).
capture_check() {
	local f=$1 w=$2 h=$3 fps=$4 n=$5 name
	name=ffs-$f-${w}x$h-$fps
	v4l2-ctl -d "$NODE" -v "width=$w,height=$h,pixelformat=$f" || fail "set-fmt $f ${w}x$h"
	v4l2-ctl -d "$NODE" -p "$fps" >/dev/null || fail "set-parm $fps"
	capture_camera_dropped "$name" "$f" "$w" "$h" "$n" ffs_frames_dropped
	bus_clean "$name"
}

# --- the gadget ----------------------------------------------------------------
step "the camera as a FunctionFS gadget on $UDC"
gadget_setup
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

# --- through usbip-host and vhci ---------------------------------------------
step "the gadget exported by the kernel's usbip-host, attached through vhci"
BUSID=${udev##*/}
modprobe usbip-host || fail "modprobe usbip-host"
modprobe vhci-hcd || fail "modprobe vhci-hcd"
usbipd -4 --tcp-port "$USBIPD_PORT" >"$RESULTS/usbipd.log" 2>&1 &
USBIPD_PID=$!
usbip bind -b "$BUSID" >>"$RESULTS/usbipd.log" 2>&1 || fail "usbip bind -b $BUSID"
wait_for no_isocam_left 20 "isocam to let go of $BUSID"
[ -e "/sys/bus/usb/drivers/usbip-host/$BUSID" ] || fail "usbip-host did not take $BUSID"
# usbipd may still be starting: try until it answers.
wait_for "usbip --tcp-port $USBIPD_PORT attach -r 127.0.0.1 -b $BUSID >>'$RESULTS/usbipd.log' 2>&1" 20 \
	"usbip attach of $BUSID through vhci"
wait_for 'NODE=$(cam_node)' 30 "the isocam video node through vhci"
driver_debugfs
[[ "$(readlink -f "$INTF")" == */vhci_hcd.* ]] || fail "isocam is not bound through vhci: $(readlink -f "$INTF")"
assert_eq "$(cam_stat transport)" bulk "debugfs transport through vhci"
log "through vhci: $NODE at $(readlink -f "$INTF")"
# Two hops of loopback TCP and dummy_hcd carry about 22 MB/s under TCG:
# 640x480 YUYV at 15 fps is half of that.
capture_check GREY 320 240 30 60
capture_check YUYV 640 480 15 60
"$STREAM" -n 1000000 -t 10000 "$NODE" >/tmp/ffs-vhci.txt 2>&1 &
pid=$!
camera_track "$pid"
f0=$(cam_stat frames)
wait_for "[ \"\$(cam_stat frames 0)\" -ge $((f0 + 5)) ]" 30 "frames through vhci before the detach"
read -r port _ <<<"$(_vhci_used_ports)"
[ -n "$port" ] || fail "no vhci port in use"
usbip detach -p "$port" >>"$RESULTS/usbipd.log" 2>&1 || fail "usbip detach -p $port"
wait_for no_isocam_left 20 "the driver's entries to go after the vhci detach"
reader_ended "$pid" /tmp/ffs-vhci.txt ENODEV 10 "detached from vhci while streaming"
usbip unbind -b "$BUSID" >>"$RESULTS/usbipd.log" 2>&1 || fail "usbip unbind -b $BUSID"
wait_for 'NODE=$(cam_node)' 30 "isocam to bind the gadget directly again"
driver_debugfs
assert_eq "$(basename "$(dirname "$(readlink -f "$INTF")")")" "$BUSID" "the device isocam binds again"
kill -TERM "$USBIPD_PID"
wait "$USBIPD_PID" 2>/dev/null || true
USBIPD_PID=
modprobe -r vhci-hcd usbip-host || fail "modprobe -r vhci-hcd usbip-host"
capture_check GREY 320 240 30 30

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
