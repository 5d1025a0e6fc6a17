#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/demo.sh: `make demo` (after `make deps` and `make`): boot the test
# VM, run tests/vm/demo/demo-guest.sh in it (it plugs the emulated camera,
# streams 5 s with ffmpeg while changing a control and prints each step),
# copy what it left to out/, and encode there: demo.mp4 and PNG snapshots
# of the frames just before and just after the change; and demo-hd.mkv,
# the 1280x960 MJPEG the camera sent, as sent (no re-encoding).
#   DEMO_OUT   where the files go (default out/)
#   GADGET=1   plug the camera as a real USB gadget (isocam-emu --gadget=ffs
#              on dummy_hcd, bulk) instead of over USB/IP
# Extra arguments go to tests/vm/harness/run-vm.sh (e.g. --timeout 600).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${DEMO_OUT:-$ROOT/out}
RUN=$ROOT/build/demo
GUEST=$ROOT/tests/vm/demo/demo-guest.sh
name=$(basename "$GUEST" .sh)

if [ "${GADGET:-0}" = 1 ]; then
	export ISOCAM_DEMO_GADGET=1
	how="as a USB gadget on dummy_hcd"
else
	unset ISOCAM_DEMO_GADGET
	how="over USB/IP"
fi
echo "demo: booting the VM (Debian's kernel under QEMU) to run $name, the camera plugged $how"
rm -rf "$RUN"
"$ROOT/tests/vm/harness/run-vm.sh" --out "$RUN" "$@" "$GUEST"
status=$?

# The files the demo wants to keep: everything the guest put in RESULTS,
# plus the guest's kernel log and console for reference.
rm -rf "$DEST"
mkdir -p "$DEST"
if [ -d "$RUN/$name/results" ]; then
	cp -r "$RUN/$name/results/." "$DEST/"
fi
for f in dmesg.log console.log; do
	[ ! -f "$RUN/$f" ] || cp "$RUN/$f" "$DEST/vm-$f"
done

# Encode on the host: a second of x264 in the TCG guest costs minutes.
encode() {
	local raw=$DEST/demo.yuyv
	# shellcheck disable=SC1091
	. "$DEST/demo.env" || return 1
	local in=(-hide_banner -loglevel error -f rawvideo -pix_fmt yuyv422
		-video_size "$SIZE" -framerate "$FPS" -i "$raw")
	echo
	echo "demo: encoding $FRAMES frames to $DEST/demo.mp4 (H.264)"
	ffmpeg "${in[@]}" -c:v libx264 -preset veryfast -pix_fmt yuv420p \
		-movflags +faststart -y "$DEST/demo.mp4" || return 1
	echo "demo: frame $((CHANGE_FRAME - 1)) (before $CONTROL=$VALUE) -> $DEST/before.png"
	ffmpeg "${in[@]}" -vf "select=eq(n\\,$((CHANGE_FRAME - 1)))" -fps_mode passthrough \
		-frames:v 1 -y "$DEST/before.png" || return 1
	echo "demo: frame $CHANGE_FRAME (after) -> $DEST/after.png"
	ffmpeg "${in[@]}" -vf "select=eq(n\\,$CHANGE_FRAME)" -fps_mode passthrough \
		-frames:v 1 -y "$DEST/after.png" || return 1
	[ "${DROPPED:-0}" = 0 ] ||
		echo "demo: $DROPPED frames were dropped on the way; causes: $DROP_CAUSES"
	rm -f "$raw"
	echo "demo: the camera's ${HD_FRAMES:-?} 1280x960 JPEGs -> $DEST/demo-hd.mkv (copied, not re-encoded)"
	ffmpeg -hide_banner -loglevel error -f mjpeg -framerate "$FPS" \
		-i "$DEST/demo-hd.mjpeg" -c:v copy -y "$DEST/demo-hd.mkv" || return 1
	rm -f "$DEST/demo-hd.mjpeg"
}
if [ "$status" = 0 ]; then
	if [ -f "$DEST/demo.env" ] && [ -f "$DEST/demo.yuyv" ]; then
		encode || { echo "demo: encoding failed"; status=1; }
	else
		echo "demo: the guest left no capture in $DEST"
		status=1
	fi
fi

echo
echo "demo: files in $DEST:"
ls -l "$DEST"
if [ "$status" != 0 ]; then
	echo "demo: FAILED (see $RUN)"
	exit 1
fi
echo "demo: ok: watch $DEST/demo.mp4 and $DEST/demo-hd.mkv; compare $DEST/before.png and $DEST/after.png"
