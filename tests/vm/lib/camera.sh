# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/vm/lib/camera.sh: the emulated camera in guest scripts. Source it
# after tests/vm/lib/base.sh.
#
#   start_emu [ARGS...]       start isocam-emu in the background (ARGS go to
#                             it, e.g. -v --count 2 --fault=...), log to
#                             $RESULTS/isocam-emu-N.log ($CAMERA_EMU_LOG);
#                             returns once it listens. $EMU_PID, $EMU_PORT.
#   stop_emu                  SIGTERM it and check it shut down cleanly
#   usbip_attach [BUSID]      usbip attach (default 1-1), its status only
#   attach_camera [BUSID]     modprobe vhci-hcd, usbip attach (default 1-1),
#                             wait for the USB device in sysfs
#   detach_camera             usbip detach every port in use; wait until the
#                             camera's USB devices are gone
#   find_usb_dev [BUSID]      sysfs path of the attached camera (the one
#                             imported from BUSID, default: the first found)
#   usb_devs                  sysfs paths of all attached isocam cameras
#   no_usb_camera             true once no camera's USB device is in sysfs
#   no_vhci_port_used         true once every vhci port is free again
#   camera_start [--expect-fail] [ARGS...]
#                             modules loaded, emulator started with ARGS,
#                             camera 1-1 attached; unless --expect-fail,
#                             waits for its video node: $NODE
#   camera_video_node [BUSID] /dev/videoN of the camera imported from BUSID
#                             (default: the first found), or fails
#   camera_stop               detach, stop the emulator
#   emu_alts                  the alt settings the camera saw selected, in
#                             order (the emulator must run with -v)
#   emu_frames_dropped [BUSID]
#                             frames the camera captured but could not send
#                             since it was attached (polled late), from a
#                             fresh status line (SIGUSR1)
#   camera_track PID...       background processes (captures, waiters) to
#                             end before the camera is detached when the
#                             script exits
#
# Sourcing this sets an EXIT trap that ends tracked processes, detaches
# every camera and stops the emulator, however the script ends.
#
# IDs come from include/isocam/usb.h, never retyped here.

: "${ISOCAM_ROOT:?source tests/vm/lib/base.sh first}"

_usb_h=$ISOCAM_ROOT/include/isocam/usb.h
# _usb_hdr NAME VAR: VAR=the value NAME is #defined to, as 4 hex digits.
_usb_hdr() {
	local d n v=""
	while read -r d n v; do
		[ "$d" = "#define" ] && [ "$n" = "$1" ] && break
		v=
	done <"$_usb_h"
	v=${v%%[[:space:]]*}
	[ -n "$v" ] || fail "$1 is not defined in $_usb_h"
	printf -v "$2" '%04x' $((v))
}
CAMERA_VID=
CAMERA_PID=
_usb_hdr ISOCAM_USB_VID CAMERA_VID
_usb_hdr ISOCAM_USB_PID CAMERA_PID
EMU_BIN=${ISOCAM_BUILD:-$ISOCAM_ROOT/build}/isocam-emu
EMU_PORT=${EMU_PORT:-3240}
EMU_PID=
_emu_runs=0
trap _camera_cleanup EXIT

_camera_pids=()

camera_track() {
	_camera_pids+=("$@")
}

# On exit (also a failed assert), leave no capture running, no camera
# attached and no emulator running for the next script. A script's own
# EXIT trap replaces this one.
_camera_cleanup() {
	local port busid
	# Best effort: nothing here may change the script's exit status.
	set +e
	[ ${#_camera_pids[@]} = 0 ] || kill "${_camera_pids[@]}" 2>/dev/null
	if [ -n "$EMU_PID" ]; then
		while read -r port busid; do
			[ -n "$port" ] && usbip detach -p "$port" >/dev/null 2>&1
		done <<<"$(_vhci_used_ports)"
		kill -TERM "$EMU_PID" 2>/dev/null
		wait "$EMU_PID" 2>/dev/null
		EMU_PID=
	fi
	return 0
}

start_emu() {
	[ -x "$EMU_BIN" ] || fail "$EMU_BIN is not built (make)"
	[ -z "$EMU_PID" ] || fail "start_emu: isocam-emu already runs (pid $EMU_PID)"
	_emu_runs=$((_emu_runs + 1))
	# (a subtest counts from its script's count: its logs get its number)
	CAMERA_EMU_LOG=$RESULTS/isocam-emu-${SUBTEST_WHY:+subtest$SUBTEST_N-}$_emu_runs.log
	"$EMU_BIN" --port "$EMU_PORT" "$@" >"$CAMERA_EMU_LOG" 2>&1 &
	EMU_PID=$!
	log "isocam-emu $* (pid $EMU_PID, log $CAMERA_EMU_LOG)"
	local deadline=$((SECONDS + 10))
	until file_has "$CAMERA_EMU_LOG" 'listening on'; do
		if ! kill -0 "$EMU_PID" 2>/dev/null; then
			cat "$CAMERA_EMU_LOG" >&2
			EMU_PID=
			fail "isocam-emu exited at start"
		fi
		[ "$SECONDS" -lt "$deadline" ] || fail "isocam-emu did not start listening in 10 s"
		nap 0.1
	done
}

stop_emu() {
	[ -n "$EMU_PID" ] || return 0
	local pid=$EMU_PID status=0
	EMU_PID=
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" || status=$?
	[ "$status" = 0 ] || {
		tail -n 20 "$CAMERA_EMU_LOG" >&2
		fail "isocam-emu exited with status $status on SIGTERM"
	}
	grep -q 'stopped' "$CAMERA_EMU_LOG" || fail "isocam-emu did not log a clean stop"
}

# _is_camera DIR: DIR is a USB device with the camera's IDs. (Builtins
# only: unplug waits poll this, and a fork costs up to 160 ms of guest
# time on the debug kernel. A device going away mid-read is not a camera.)
_is_camera() {
	local v="" p=""
	[ -f "$1/idVendor" ] || return 1
	{ read -r v <"$1/idVendor" && read -r p <"$1/idProduct"; } 2>/dev/null || return 1
	[ "$v" = "$CAMERA_VID" ] && [ "$p" = "$CAMERA_PID" ]
}

usb_devs() {
	local d
	for d in /sys/bus/usb/devices/*; do
		_is_camera "$d" && readlink -f "$d"
	done
	return 0
}

# no_usb_camera: no camera's USB device is left in sysfs.
no_usb_camera() {
	local d
	for d in /sys/bus/usb/devices/*; do
		! _is_camera "$d" || return 1
	done
}

# (Here-strings, not process substitution: the guest has no /dev/fd.)
# The vhci ports in use, as "PORT BUSID" (status files: hub port sta spd
# dev sockfd local_busid; sta 6 is VDEV_ST_USED).
# no_vhci_port_used: every vhci port is free again (status 004). After an
# unplug a port can still say "used" while its USB device is already gone
# from sysfs, and usbip attach, which reads each used port's device,
# then fails before it reaches the camera.
no_vhci_port_used() {
	local f port sta rest
	for f in /sys/devices/platform/vhci_hcd.*/status*; do
		[ -f "$f" ] || continue
		{
			read -r _
			while read -r _ port sta rest; do
				[ "$sta" = 004 ] || return 1
			done
		} <"$f"
	done
	return 0
}

_vhci_used_ports() {
	local f port sta rest busid
	for f in /sys/devices/platform/vhci_hcd.*/status*; do
		[ -f "$f" ] || continue
		{
			read -r _
			while read -r _ port sta rest; do
				busid=${rest##* }
				[ "$sta" != 006 ] || echo "$((10#$port)) $busid"
			done
		} <"$f"
	done
	return 0
}

find_usb_dev() {
	local busid=${1:-} port here rec b
	if [ -z "$busid" ]; then
		usb_devs | head -n 1 | grep .
		return
	fi
	# usbip attach records "host port busid" in /var/run/vhci_hcd/portN;
	# vhci's status gives port N's local bus id.
	while read -r port here; do
		rec=/var/run/vhci_hcd/port$port
		[ -f "$rec" ] || continue
		b=
		read -r _ _ b <"$rec" || true
		[ "$b" = "$busid" ] || continue
		[ -e "/sys/bus/usb/devices/$here" ] || continue
		readlink -f "/sys/bus/usb/devices/$here"
		return 0
	done <<<"$(_vhci_used_ports)"
	return 1
}

# usbip_attach [BUSID]: usbip attach of camera BUSID (default 1-1) with
# its status, nothing waited for: the one place the suite plugs a camera
# (attach_camera waits for it; a test of a refused plug looks itself).
usbip_attach() {
	timeout 20 usbip --tcp-port "$EMU_PORT" attach -r 127.0.0.1 -b "${1:-1-1}" >/dev/null
}

attach_camera() {
	local busid=${1:-1-1} dev
	require_cmd usbip
	module_loaded vhci_hcd || modprobe vhci-hcd || fail "modprobe vhci-hcd failed"
	wait_for '[ -d /sys/devices/platform/vhci_hcd.0 ]' 10 "vhci_hcd.0"
	usbip_attach "$busid" || fail "usbip attach -r 127.0.0.1 -b $busid failed"
	wait_for "find_usb_dev $busid >/dev/null" 20 "the camera $busid to enumerate"
	dev=$(find_usb_dev "$busid")
	# the interface exists once usbcore has configured the device
	wait_for "[ -e $dev/$(basename "$dev"):1.0 ]" 10 "interface 0 of $dev"
	log "attached $busid: $dev"
}

detach_camera() {
	local port busid
	while read -r port busid; do
		[ -n "$port" ] || continue
		usbip detach -p "$port" >/dev/null || fail "usbip detach -p $port failed"
		log "detached vhci port $port${busid:+ ($busid)}"
	done <<<"$(_vhci_used_ports)"
	wait_for 'no_usb_camera && no_vhci_port_used' 20 \
		"the camera's USB devices to go away and vhci's ports to be free"
}

emu_alts() {
	sed -n 's/.*: alt setting \([0-9]*\) .*/\1/p' "$CAMERA_EMU_LOG" | tr '\n' ' '
}

emu_frames_dropped() {
	local pat="cam[0-9]* ${1:-1-1}: client .*frames sent" n
	n=$(grep -c "$pat" "$CAMERA_EMU_LOG" || true)	# grep -c exits 1 on 0
	kill -USR1 "$EMU_PID" || fail "isocam-emu is gone"
	wait_for "[ \$(grep -c '$pat' '$CAMERA_EMU_LOG') -gt $n ]" 5 "the camera's status line"
	grep "$pat" "$CAMERA_EMU_LOG" | tail -n 1 |
		sed -n 's/.*frames sent [0-9]* dropped \([0-9]*\).*/\1/p'
}

# shellcheck disable=SC2120 # the scripts that source this pass BUSID
camera_video_node() {
	local dev v
	dev=$(find_usb_dev "${1:-}") || return 1
	for v in /sys/class/video4linux/video*; do
		[ -e "$v/device" ] || continue
		case "$(readlink -f "$v/device")" in
		"$dev"/*)
			echo "/dev/$(basename "$v")"
			return 0
			;;
		esac
	done
	return 1
}

camera_start() {
	local expect_fail=0
	if [ "${1:-}" = "--expect-fail" ]; then
		expect_fail=1
		shift
	fi
	load_isocam_modules
	start_emu "$@"
	attach_camera 1-1
	NODE=
	if [ "$expect_fail" = 0 ]; then
		wait_for 'camera_video_node >/dev/null' 20 "the camera's video node"
		NODE=$(camera_video_node)
		wait_for "[ -c $NODE ]" 10 "$NODE in devtmpfs"
	fi
}

camera_stop() {
	detach_camera
	stop_emu
}
