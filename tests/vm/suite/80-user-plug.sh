#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Plug. With the modules and i2c-dev loaded, start
# isocam-emu and `usbip attach`; within 5 s the camera's /dev/videoN, the
# sensor's controls on it and the bridge's /dev/i2c-N all exist. No udev:
# every node is found through sysfs, from the USB interface down. Three
# plugs, the slowest one counts.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd usbip v4l2-ctl i2ctransfer

regs_h=$ISOCAM_ROOT/include/isocam/ic1280_regs.h
hdr() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' "$regs_h"; }
SENSOR_ADDR=$(printf '0x%02x' "$(($(hdr IC1280_I2C_ADDR)))")
REG=$(($(hdr IC1280_REG_CHIP_ID_H)))
CHIP_REG=$(printf '0x%02x 0x%02x' $((REG >> 8)) $((REG & 0xff)))
CHIP_ID=$(printf '0x%02x 0x%02x' "$(($(hdr IC1280_CHIP_ID) >> 8))" "$(($(hdr IC1280_CHIP_ID) & 0xff))")

modprobe i2c-dev
driver_setup

# The camera's nodes as sysfs says, or nothing yet: VIDEO, I2C (/dev
# paths) and the sensor's i2c client.
find_nodes() {
	local intf a v c
	VIDEO='' I2C='' SENSOR=''
	intf=$(cam_intf) || return 1
	for v in "$intf"/video4linux/video*; do
		[ -c "/dev/${v##*/}" ] && VIDEO=/dev/${v##*/}
	done
	for a in "$intf"/i2c-*/i2c-dev/i2c-*; do
		[ -c "/dev/${a##*/}" ] && I2C=/dev/${a##*/}
	done
	for c in "$intf"/i2c-*/*-00"${SENSOR_ADDR#0x}"; do
		[ -e "$c/driver" ] && SENSOR=$c
	done
	[ -n "$VIDEO" ] && [ -n "$I2C" ] && [ -n "$SENSOR" ]
}

# The sensor's controls, as the video node lists them.
has_controls() {
	local l
	l=$(v4l2-ctl -d "$VIDEO" -l 2>/dev/null) || return 1
	for c in brightness contrast exposure_time_absolute analogue_gain \
		horizontal_flip test_pattern; do
		[[ "$l" == *"$c "* ]] || return 1
	done
}

worst=0
for i in 1 2 3; do
	step "plug $i"
	t0=$EPOCHREALTIME
	usbip_attach 1-1 || fail "usbip attach failed"
	until find_nodes && has_controls; do
		ms=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))
		[ "$ms" -lt 5000 ] || fail "plug $i: after ${ms} ms: video '$VIDEO' i2c '$I2C' sensor '$SENSOR'"
		nap 0.05
	done
	ms=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))
	[ "$ms" -le "$worst" ] || worst=$ms
	log "plug $i: $VIDEO, $I2C, sensor ${SENSOR##*/} ($(readlink -f "$SENSOR/driver" | sed 's|.*/||')) in $ms ms"
	assert_eq "$(readlink -f "$SENSOR/driver")" /sys/bus/i2c/drivers/ic1280 "sensor's driver"
	# The nodes work: the bridge's bus reaches the sensor, the video node
	# reports the camera's controls with the sensor's ranges.
	# The bridge's bus reaches the sensor from userspace: its chip ID
	# (-f: the address is bound to ic1280).
	assert_eq "$(i2ctransfer -f -y "${I2C#/dev/i2c-}" w2@"$SENSOR_ADDR" $CHIP_REG r2)" \
		"$CHIP_ID" "chip ID read through $I2C"
	v4l2-ctl -d "$VIDEO" --info >"$RESULTS/info-$i.txt"
	assert_match "$(cat "$RESULTS/info-$i.txt")" "Driver name[[:space:]]*: isocam" "driver name"
	v4l2-ctl -d "$VIDEO" -l >"$RESULTS/controls-$i.txt"
	NODE=$VIDEO
	unplug
done
log "slowest plug: $worst ms to the video node, i2c node and controls"
stop_emu
