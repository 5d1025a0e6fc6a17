#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Several cameras. `isocam-emu --count 3` serves
# three cameras; all three are attached, each gets its own video node and
# i2c bus, and three ffmpeg captures run at once, each checked frame by
# frame. (320x240 YUYV: three 640x480 streams would need 55 MB/s, more
# than usbip moves under TCG.)
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ffmpeg usbip v4l2-ctl

CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"

N=3
FRAMES=90
load_isocam_modules
start_emu --count "$N"

step "attach $N cameras"
NODES=()
for i in $(seq 1 "$N"); do
	attach_camera "1-$i"
	dev=$(find_usb_dev "1-$i")
	wait_for "camera_video_node 1-$i >/dev/null" 20 "camera 1-$i's video node"
	node=$(camera_video_node "1-$i")
	wait_for "[ -c $node ]" 10 "$node"
	NODES+=("$node")
	log "camera 1-$i: $node, serial $(cat "$dev/serial"), $(echo "$dev"/*:1.0/i2c-* | sed 's|.*/||')"
done
assert_eq "$(printf '%s\n' "${NODES[@]}" | sort -u | wc -l)" "$N" "distinct video nodes"
serials=$(for d in $(usb_devs); do cat "$d/serial"; done | sort -u | wc -l)
assert_eq "$serials" "$N" "distinct camera serial numbers"

step "$N ffmpeg captures at once, $FRAMES frames of 320x240 yuyv422 each"
for i in $(seq 0 $((N - 1))); do
	ffmpeg -hide_banner -nostdin -loglevel error -f v4l2 -input_format yuyv422 \
		-video_size 320x240 -framerate 30 -i "${NODES[$i]}" -frames:v "$FRAMES" \
		-fps_mode passthrough -f rawvideo -y "/tmp/cam$i.raw" \
		2>"$RESULTS/ffmpeg-cam$i.log" &
	PIDS+=($!)
	camera_track $!
done
for i in $(seq 0 $((N - 1))); do
	wait "${PIDS[$i]}" || fail "ffmpeg on ${NODES[$i]} failed: $(tail -n 5 "$RESULTS/ffmpeg-cam$i.log")"
done
PIDS=()

for i in $(seq 0 $((N - 1))); do
	"$CHECK" --format yuyv --size 320x240 --expect-frames "$FRAMES" --any-start \
		"/tmp/cam$i.raw" >"$RESULTS/check-cam$i.log" 2>&1 || {
		cat "$RESULTS/check-cam$i.log" >&2
		fail "isocam-check rejected ${NODES[$i]}'s capture"
	}
	log "${NODES[$i]}: $(tail -n 1 "$RESULTS/check-cam$i.log")"
	rm -f "/tmp/cam$i.raw"
done
kill -USR1 "$EMU_PID"
sleep 0.5
grep -E 'cam[0-9]+:.*(frames|MB/s)' "$CAMERA_EMU_LOG" | tail -n "$N" || true
camera_stop
