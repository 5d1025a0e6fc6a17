#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): the camera over a network instead of
# loopback. isocam-emu runs in its own network namespace behind a veth
# pair; vhci attaches from the other end. Each side's veth delays what it
# sends with netem (5 ms +- 2 ms, so about 10 ms a round trip), and the
# camera drops what the host does not ask for in time, as hardware would
# (--late-tolerance=0). 640x480 YUYV at 30 fps, $FRAMES frames, with 32,
# 16, 8 and 4 URBs in flight (isocam's num_urbs, 32 packets each: 4 ms of
# bus time an URB); the reference is the same veth without netem, 32
# URBs, in the same boot. Frames for each run:
# $ISOCAM_BUILD/bench/tp-frames, else 300.
# Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 1800
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd ip tc usbip v4l2-ctl awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
FRAMES=300
[ ! -r "$ISOCAM_BUILD/bench/tp-frames" ] || FRAMES=$(cat "$ISOCAM_BUILD/bench/tp-frames")
NS=isocam-cam
CAM_IP=10.99.0.1
HOST_IP=10.99.0.2
NUM_URBS=/sys/module/isocam/parameters/num_urbs

# shellcheck disable=SC2317
_net_cleanup() {
	set +e
	local p
	for p in $(_vhci_used_ports | awk '{ print $1 }'); do usbip detach -p "$p"; done
	[ -z "$EMU_PID" ] || { kill -TERM "$EMU_PID"; wait "$EMU_PID"; }
	[ -z "${URBS0:-}" ] || echo "$URBS0" >"$NUM_URBS"
	ip link del veth-host 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	return 0
}
trap _net_cleanup EXIT

modprobe veth || fail "modprobe veth"
modprobe sch_netem || fail "modprobe sch_netem"
ip netns add "$NS" || fail "ip netns add"
ip link add veth-host type veth peer name veth-cam || fail "veth pair"
ip link set veth-cam netns "$NS"
ip addr add "$HOST_IP/24" dev veth-host
ip link set veth-host up
ip netns exec "$NS" ip addr add "$CAM_IP/24" dev veth-cam
ip netns exec "$NS" ip link set veth-cam up
ip netns exec "$NS" ip link set lo up

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
modprobe vhci-hcd
load_isocam_modules
URBS0=$(cat "$NUM_URBS")
CAMERA_EMU_LOG=$RESULTS/isocam-emu.log
ip netns exec "$NS" "$EMU_BIN" --bind "$CAM_IP" --port "$EMU_PORT" \
	--late-tolerance=0 >"$CAMERA_EMU_LOG" 2>&1 &
EMU_PID=$!
wait_for "grep -q 'listening on' $CAMERA_EMU_LOG" 10 "isocam-emu in $NS"
usbip --tcp-port "$EMU_PORT" attach -r "$CAM_IP" -b 1-1 || fail "usbip attach -r $CAM_IP"
wait_for 'NODE=$(cam_node)' 30 "the isocam video node"
driver_debugfs
v4l2-ctl -d "$NODE" -v width=640,height=480,pixelformat=YUYV -p 30 >/dev/null ||
	fail "640x480 YUYV at 30 fps"
"$STREAM" -b 8 -n 30 -t 10000 "$NODE" >/dev/null || fail "warm-up"

# run TAG URBS WHAT: FRAMES frames with URBS URBs in flight; one bench line.
run() {
	local r err0 emu0 err emu fps
	echo "$2" >"$NUM_URBS"
	err0=$(cam_stat error_frames)
	emu0=$(emu_frames_dropped)
	r=$("$STREAM" -b 8 -n "$FRAMES" -t 10000 -T "$RESULTS/net-$1-$2.txt" "$NODE") ||
		fail "isocam-stream: $r"
	err=$(($(cam_stat error_frames) - err0))
	emu=$(($(emu_frames_dropped) - emu0))
	fps=$(stamps_fps "$RESULTS/net-$1-$2.txt")
	echo "bench: network $3, $2 URBs in flight ($(($2 * 4)) ms): $fps fps; lost: $(field missing "$r") sequence gaps, $err error frames, $emu frames the camera dropped (host late); $(grep 'cam0 1-1: client' "$CAMERA_EMU_LOG" | tail -n 1 | sed -n 's/.*\(host late [0-9]* times[^)]*)\).*/\1/p')"
}

run plain 32 "veth, no netem (reference)"
ip netns exec "$NS" tc qdisc add dev veth-cam root netem delay 5ms 2ms ||
	fail "netem on veth-cam"
tc qdisc add dev veth-host root netem delay 5ms 2ms || fail "netem on veth-host"
for u in 32 16 8 4; do
	run netem "$u" "veth, netem 5 ms +- 2 ms each way"
done
