#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Autoload on plug: with Debian's systemd-udevd running and the
# modules installed in the guest's module tree (depmod'ed, as `make
# install` leaves them), attaching the camera loads isocam by its USB
# modalias and ic1280 before it (isocam's softdep), and the video node
# appears with no modprobe from anyone; detaching leaves no device, node
# or debugfs entry behind.
# vm-timeout: 300
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd udevadm usbip

# shellcheck disable=SC2317
_autoload_cleanup() {
	set +e
	_camera_cleanup
	udevd_stop
	return 0
}
trap _autoload_cleanup EXIT

step "no isocam module loaded, vhci-hcd ready"
unload_isocam_modules
modprobe vhci-hcd
wait_for '[ -d /sys/devices/platform/vhci_hcd.0 ]' 10 "vhci_hcd.0"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
alias=$(modprobe --resolve-alias "usb:v${CAMERA_VID^^}p${CAMERA_PID^^}d0100dcFFdsc00dp00icFFisc01ip01in00")
assert_eq "$alias" isocam "the module the camera's modalias resolves to"

step "systemd-udevd"
udevd_start

step "attach: the modules load by themselves"
start_emu
attach_camera 1-1
wait_for 'camera_video_node 1-1 >/dev/null' 30 "the video node to appear by itself"
node=$(camera_video_node 1-1)
assert_module_loaded ic1280
assert_module_loaded isocam
udevadm settle -t 20 || true
log "$node appeared; loaded: $(awk '$1 == "isocam" || $1 == "ic1280" { printf "%s ", $1 }' /proc/modules)"
driver_debugfs
v4l2-ctl -d "$node" --all >/dev/null || fail "the autoloaded camera does not answer"

step "detach: nothing left behind"
detach_camera
wait_for no_isocam_left 20 "the driver's sysfs and debugfs entries to go"
[ ! -e "$node" ] || wait_for "[ ! -e $node ]" 10 "$node to go"
for c in /sys/class/video4linux/* /sys/bus/media/devices/*; do
	[ -e "$c" ] || continue
	case "$(readlink -f "$c")" in
	*vhci_hcd*) fail "$c is still there after the detach" ;;
	esac
done
stop_emu
log "detached: no isocam device, node or debugfs entry left"
