#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The desktop: PipeWire (Debian's pipewire and wireplumber, with
# systemd-udevd for device discovery) lists the camera as a video source,
# and GStreamer's pipewiresrc captures from it; isocam-check checks every
# frame (stamp, counter, checksum, every byte against the reference).
# vm-timeout: 400
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd pipewire wireplumber pw-cli pw-dump gst-launch-1.0 dbus-daemon udevadm python3
CHECK=$ISOCAM_BUILD/isocam-check
[ -x "$CHECK" ] || fail "$CHECK is not built (make)"
FRAMES=30
PW_PIDS=()

# shellcheck disable=SC2317
_pw_cleanup() {
	set +e
	[ ${#PW_PIDS[@]} = 0 ] || kill "${PW_PIDS[@]}" 2>/dev/null
	_camera_cleanup
	udevd_stop
	return 0
}
trap _pw_cleanup EXIT

udevd_start
camera_start
udevadm settle -t 20 || true
log "$NODE: $(udevadm info -q property -n "$NODE" | grep -E '^ID_V4L_CAPABILITIES=' || echo 'no ID_V4L_CAPABILITIES')"

step "PipeWire and WirePlumber"
# WirePlumber's logind plugin watches systemd-logind's state directories
# and stops WirePlumber when it cannot ("failed to start systemd logind
# monitor: -2"). The guest runs no logind: give it an empty state, no
# seat and no session, as a machine with logind and nobody logged in.
mkdir -p /run/systemd/seats /run/systemd/sessions /run/systemd/users /run/systemd/machines
export XDG_RUNTIME_DIR=/run/isocam-pw
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
DBUS_SESSION_BUS_ADDRESS=$(dbus-daemon --session --fork --print-address) ||
	fail "dbus-daemon --session"
export DBUS_SESSION_BUS_ADDRESS
PW_PIDS+=("$(pgrep -n dbus-daemon)")
# Their own logs at level 3 say why when no source appears.
PIPEWIRE_DEBUG=3 pipewire >"$RESULTS/pipewire.log" 2>&1 &
PW_PIDS+=($!)
wait_for '[ -S "$XDG_RUNTIME_DIR/pipewire-0" ]' 20 "PipeWire's socket"
WIREPLUMBER_DEBUG=3 wireplumber >"$RESULTS/wireplumber.log" 2>&1 &
PW_PIDS+=($!)

# video_source: "id serial" of the PipeWire node of NODE, a Video/Source.
video_source() {
	pw-dump 2>/dev/null | python3 -c '
import json, sys
node = sys.argv[1]
for o in json.load(sys.stdin):
    p = (o.get("info") or {}).get("props") or {}
    paths = (p.get("api.v4l2.path"), p.get("object.path", "").replace("v4l2:", "", 1))
    if p.get("media.class") == "Video/Source" and node in paths:
        print(o["id"], p.get("object.serial", o["id"]))
        break
' "$NODE"
}
deadline=$((SECONDS + 60))
until [ -n "$(video_source)" ]; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		pgrep -a 'pipewire|wireplumber' >&2 || echo "neither pipewire nor wireplumber runs" >&2
		pw-dump >"$RESULTS/pw-dump.json" 2>&1 || true
		tail -n 30 "$RESULTS/pipewire.log" "$RESULTS/wireplumber.log" >&2
		fail "PipeWire did not list $NODE as a video source in 60 s (pw-dump in $RESULTS)"
	fi
	sleep 0.5
done
read -r id serial <<<"$(video_source)"
pw-cli info "$id" >"$RESULTS/pw-node.txt" 2>&1 || true
log "PipeWire node $id (serial $serial): $(grep -E 'node.description|node.name' "$RESULTS/pw-node.txt" | tr -s ' \n' ' ')"

step "gst-launch-1.0 pipewiresrc: $FRAMES frames of 640x480 YUY2"
RAW=/tmp/pw.raw
timeout 120 gst-launch-1.0 -q pipewiresrc target-object="$serial" num-buffers="$FRAMES" \
	! video/x-raw,format=YUY2,width=640,height=480 \
	! filesink location="$RAW" >"$RESULTS/gst.log" 2>&1 || {
	tail -n 20 "$RESULTS/gst.log" >&2
	fail "pipewiresrc capture failed"
}
"$CHECK" --format yuyv --size 640x480 --expect-frames "$FRAMES" --any-start \
	"$RAW" >"$RESULTS/check.log" 2>&1 || {
	cat "$RESULTS/check.log" >&2
	fail "isocam-check rejected the PipeWire capture"
}
log "$(tail -n 1 "$RESULTS/check.log")"
rm -f "$RAW"
