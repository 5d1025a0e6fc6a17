# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Guest-side helpers for the camera as a real USB gadget: isocam-emu
# --gadget=ffs on dummy_hcd's UDC, bound by isocam through dummy_hcd's own
# host side (67-gadget-ffs.sh, and `make demo GADGET=1`). Source after
# lib/base.sh, lib/camera.sh and lib/driver.sh.

UDC=${UDC:-dummy_udc.0}
FFS_PID=
FFS_RUNS=0
FFS_LOG=

# gadget_setup: debugfs, dummy_hcd (its UDC and its host) and isocam's
# modules loaded.
gadget_setup() {
	is_mounted /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	modprobe dummy_hcd || fail "modprobe dummy_hcd"
	wait_for "[ -e /sys/class/udc/$UDC ]" 10 "$UDC"
	load_isocam_modules
}

# gadget_cleanup: on exit, no gadget emulator left running and dummy_hcd
# unloaded (best effort, for an EXIT trap).
gadget_cleanup() {
	if [ -n "$FFS_PID" ]; then
		kill -TERM "$FFS_PID" 2>/dev/null
		wait "$FFS_PID" 2>/dev/null
		FFS_PID=
	fi
	modprobe -r dummy_hcd 2>/dev/null
	# guest-run.sh mounts configfs for every script
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	return 0
}

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

# ffs_frames_dropped: frames the gadget could not send (its status line).
ffs_frames_dropped() {
	sed -n 's/.*frames sent [0-9]* dropped \([0-9]*\).*/\1/p' <<<"$(ffs_status)"
}
