#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): how much of the high-speed
# isochronous limit (3 x 1024 bytes a microframe: 24.576 MB/s) isocam
# carries through vhci, beside the kernel's own USB/IP path in the same
# boot.
#  - isocam: the camera's free-running personality (isocam-emu
#    --free-run: each frame is captured as soon as the one before it is
#    sent) at 640x480 YUYV on alt 7, so every microframe carries a full
#    packet; frames delivered, lost, and the bus rate they imply.
#  - The reference: a configfs SourceSink gadget on dummy_hcd, exported
#    by usbip-host through usbipd and attached through vhci over
#    loopback, read by the kernel's usbtest with testusb (built from the
#    kernel source's tools/usb/testusb.c), bulk IN (test 2) and OUT
#    (test 1): the most the same USB/IP path moves in this boot.
# Frames for isocam: $ISOCAM_BUILD/bench/tp-frames, else 300.
# Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 1800
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl usbip usbipd awk
STREAM=$ISOCAM_BUILD/isocam-stream
TESTUSB=$ISOCAM_BUILD/bench/testusb
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
[ -x "$TESTUSB" ] || fail "$TESTUSB is not built (make bench)"
FRAMES=300
[ ! -r "$ISOCAM_BUILD/bench/tp-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/tp-frames")
PKT=3072
FRAME=$((640 * 480 * 2))
HDR=12
PER_FRAME=$(((FRAME + PKT - HDR - 1) / (PKT - HDR)))	# packets a frame

step "isocam, free-running, 640x480 YUYV"
camera_start_vga --free-run
err0=$(cam_stat error_frames)
emu0=$(emu_frames_dropped)
r=$("$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$RESULTS/free-run.txt" "$NODE") ||
	fail "isocam-stream: $r"
assert_match "$r" 'end=count' "the free-running stream"
err=$(($(cam_stat error_frames) - err0))
emu=$(($(emu_frames_dropped) - emu0))
fps=$(stamps_fps "$RESULTS/free-run.txt")
bus=$(awk -v f="$fps" -v p="$PER_FRAME" -v k="$PKT" 'BEGIN { printf "%.2f", f * p * k / 1e6 }')
frac=$(awk -v f="$fps" -v p="$PER_FRAME" 'BEGIN { printf "%.3f", f * p / 8000 }')
echo "bench: transport isocam free-running 640x480 YUYV: $fps fps ($PER_FRAME full packets a frame), $bus MB/s of microframes used, $frac of the 24.576 MB/s limit; lost: $(field missing "$r") sequence gaps, $err error frames, $emu frames the camera could not send"
camera_stop
log "$(tail -n 1 "$RESULTS/free-run.txt")"

step "the kernel's USB/IP path: SourceSink on dummy_hcd, usbip-host, vhci"
for m in dummy_hcd libcomposite usb_f_ss_lb usbip-host vhci-hcd; do
	modprobe "$m" || fail "modprobe $m"
done
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
G=/sys/kernel/config/usb_gadget/isocam-bench
USBIPD_PID=
# shellcheck disable=SC2317
_ref_cleanup() {
	set +e
	local p
	for p in $(_vhci_used_ports | awk '{ print $1 }'); do usbip detach -p "$p"; done
	[ -z "${BUSID:-}" ] || usbip unbind -b "$BUSID"
	[ -z "$USBIPD_PID" ] || kill "$USBIPD_PID"
	if [ -d "$G" ]; then
		echo "" >"$G/UDC"
		rm -f "$G/configs/c.1/SourceSink.0"
		rmdir "$G/configs/c.1/strings/0x409" "$G/configs/c.1" \
			"$G/functions/SourceSink.0" "$G/strings/0x409" "$G"
	fi
	return 0
}
trap _ref_cleanup EXIT
mkdir "$G" || fail "configfs gadget"
# Gadget Zero's IDs: usbtest drives them.
echo 0x0525 >"$G/idVendor"
echo 0xa4a0 >"$G/idProduct"
mkdir "$G/strings/0x409"
echo isocam-bench >"$G/strings/0x409/serialnumber"
mkdir "$G/functions/SourceSink.0"
echo 65536 >"$G/functions/SourceSink.0/bulk_buflen"
mkdir -p "$G/configs/c.1/strings/0x409"
ln -s "$G/functions/SourceSink.0" "$G/configs/c.1/"
udc=$(ls /sys/class/udc | head -n 1)
[ -n "$udc" ] || fail "no UDC (dummy_hcd)"
echo "$udc" >"$G/UDC"
BUSID=
wait_for 'BUSID=$(for d in /sys/bus/usb/devices/*; do [ "$(cat "$d/idProduct" 2>/dev/null)" = a4a0 ] && basename "$d"; done | head -n 1); [ -n "$BUSID" ]' 20 \
	"the SourceSink gadget on dummy_hcd's host side"
log "SourceSink on $udc, bus id $BUSID"
usbipd --tcp-port 3250 >"$RESULTS/usbipd.log" 2>&1 &
USBIPD_PID=$!
sleep 1
usbip bind -b "$BUSID" || fail "usbip bind -b $BUSID"
usbip --tcp-port 3250 attach -r 127.0.0.1 -b "$BUSID" || fail "usbip attach $BUSID"
modprobe usbtest || fail "modprobe usbtest"
DEV=
wait_for 'for d in /sys/bus/usb/drivers/usbtest/*:*; do [ -e "$d" ] || continue; p=$(readlink -f "$d/.."); DEV=/dev/bus/usb/$(printf %03d "$(cat "$p/busnum")")/$(printf %03d "$(cat "$p/devnum")"); done; [ -n "$DEV" ] && [ -c "$DEV" ]' 30 \
	"usbtest on the attached gadget"
log "usbtest drives $DEV"

# testusb_rate TEST: MB/s of COUNT transfers of 64 KiB.
COUNT=400
testusb_rate() {
	local out secs
	out=$("$TESTUSB" -D "$DEV" -t "$1" -s 65536 -c "$COUNT" 2>&1) || fail "testusb -t $1: $out"
	log "$out" >&2
	secs=$(sed -n 's/.*test [0-9]*, *\([0-9.]*\) secs.*/\1/p' <<<"$out")
	[ -n "$secs" ] || fail "testusb -t $1 printed no time: $out"
	awk -v s="$secs" -v n="$COUNT" 'BEGIN { printf "%.2f", n * 65536 / s / 1e6 }'
}
"$TESTUSB" -D "$DEV" -t 2 -s 65536 -c 20 >/dev/null 2>&1 || fail "testusb warm-up"
in_mbs=$(testusb_rate 2)
out_mbs=$(testusb_rate 1)
echo "bench: transport reference, the kernel's USB/IP path (SourceSink, bulk, 64 KiB transfers): IN $in_mbs MB/s, OUT $out_mbs MB/s"
echo "bench: transport isocam / reference bulk IN: $(awk -v a="$bus" -v b="$in_mbs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')x; isocam / the iso limit: $frac"
