#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sensor: ic1280.ko, the sensor's i2c client driver, behind
# the isocam bridge and the emulated camera.
#  - the client sits on the bridge's adapter: i2cdetect shows UU at 0x3c;
#  - the video node lists every sensor control with the header's ranges;
#  - opening the node and setting controls while idle never touch the
#    sensor (runtime suspended, no i2c writes); stream start writes the
#    mode and every cached control, then MODE_SELECT streaming; a control
#    set while streaming reaches the register at once and the picture
#    (the frame stamp) follows; stream stop puts the sensor in standby;
#  - settings persist across streams and opens;
#  - log-status prints the sensor's state and controls;
#  - a wrong chip id, or no answer at all, fails the bind cleanly.
# Register values expected here come from include/isocam/ic1280_regs.h.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"

require_cmd v4l2-ctl i2cdetect od awk

HDR=$ISOCAM_ROOT/include/isocam/ic1280_regs.h
STAMP_HDR=$ISOCAM_ROOT/include/isocam/frame_stamp.h

# Every numeric #define of the two headers, resolved once into N[NAME]
# (names defined as another name, e.g. IC1280_PLF_DEFAULT, are followed).
# Plain lookups, no subshells: forks are slow under TCG, and the checks
# while a stream runs must keep up with it.
declare -A DEFS N
while read -r name val; do
	[ -n "$name" ] && DEFS[$name]=${val//[()]/}
done <<<"$(awk '$1 == "#define" && NF >= 3 { print $2, $3 }' "$HDR" "$STAMP_HDR")"
for name in "${!DEFS[@]}"; do
	v=${DEFS[$name]}
	while [[ "$v" =~ ^[A-Z_][A-Z0-9_]*$ ]]; do v=${DEFS[$v]:-}; done
	[[ "$v" =~ ^-?(0x[0-9a-fA-F]+|[0-9]+)$ ]] && N[$name]=$((v))
done
[ "${N[IC1280_CHIP_ID]:-}" = $((0x1280)) ] || fail "cannot read $HDR"

ADDR=${N[IC1280_I2C_ADDR]}
printf -v ADDR_HEX '0x%02x' "$ADDR"
printf -v CLIENT_SUFFIX -- '-%04x' "$ADDR"

# --- the emulator's i2c log ------------------------------------------------
# With -v the emulator logs every register write as
#   cam0: i2c 0x3c write reg 0x5000 = 0x20
# emu_writes_since N: the register-write lines for our sensor after line N.
emu_lines() { wc -l <"$CAMERA_EMU_LOG"; }
emu_writes_since() {
	tail -n +"$(($1 + 1))" "$CAMERA_EMU_LOG" |
		grep -E "i2c $ADDR_HEX write reg 0x[0-9a-f]{4} = 0x[0-9a-f]{2}" || true
}
# reg_line REG VAL: the log text of one register write, in REPLY.
reg_line() { printf -v REPLY 'i2c %s write reg 0x%04x = 0x%02x' "$ADDR_HEX" "$1" "$(($2 & 0xff))"; }
# expect_write SINCE REG VAL [TIMEOUT]: the write shows up in the log.
expect_write() {
	local since=$1 timeout=${4:-10} line
	reg_line "$2" "$3"
	line=$REPLY
	wait_for "emu_writes_since $since | grep -F '$line' >/dev/null" "$timeout" "'$line' in the emulator log"
}
# expect_writes_in TEXT WHAT "REG VAL"...: each write is among TEXT's lines.
expect_writes_in() {
	local text=$1 what=$2 want
	shift 2
	for want in "$@"; do
		# shellcheck disable=SC2086
		reg_line $want
		[[ "$text" == *"$REPLY"* ]] || fail "'$REPLY' not written $what"
	done
}
# expect_write16 SINCE REG_H VAL: both bytes of a big endian pair.
expect_write16() {
	expect_write "$1" "$2" $(($3 >> 8 & 0xff)) "${4:-10}"
	expect_write "$1" $(($2 + 1)) $(($3 & 0xff)) "${4:-10}"
}

# --- the sensor's client and power state ----------------------------------
client_dir() {
	local d
	for d in /sys/bus/i2c/drivers/ic1280/*"$CLIENT_SUFFIX"; do
		[ -e "$d" ] && { readlink -f "$d"; return 0; }
	done
	return 1
}
runtime_status() { cat "$CLIENT/power/runtime_status"; }

# kmsg_has MARK ERE: the kernel log after `kmsg_mark MARK` matches ERE.
# (No `dmesg | grep -q` under pipefail: an early grep exit fails dmesg.)
kmsg_since() { dmesg | sed -n "/isocam-test: $1/,\$p"; }
kmsg_has() {
	local k
	k=$(kmsg_since "$1")
	grep -qE -- "$2" <<<"$k"
}

# --- the frame stamp ---------------------------------------------------------
# load_stamp FILE: the first frame stamp of FILE into STAMP[] (bytes);
# then stamp_u8/u16/s8/s16 FIELD read it (FIELD as in ISOCAM_STAMP_OFF_*).
STAMP=()
load_stamp() {
	read -ra STAMP <<<"$(od -An -tu1 -v -N "${N[ISOCAM_STAMP_LEN]}" "$1" | tr -s ' \n' ' ')"
	assert_eq "${#STAMP[@]}" "${N[ISOCAM_STAMP_LEN]}" "stamp bytes in $1"
}
stamp_u8() { echo "${STAMP[N[ISOCAM_STAMP_OFF_$1]]}"; }
stamp_u16() {
	local o=${N[ISOCAM_STAMP_OFF_$1]}
	echo $((STAMP[o] | STAMP[o + 1] << 8))
}
stamp_s8() { local v; v=$(stamp_u8 "$1"); echo $((v >= 128 ? v - 256 : v)); }
stamp_s16() { local v; v=$(stamp_u16 "$1"); echo $((v >= 32768 ? v - 65536 : v)); }

# load_ctrls: the --list-ctrls-menus dump in $RESULTS/ctrls.txt parsed in
# one pass into CTRL[name] = "type min max default flags" ("-" when
# v4l2-ctl prints no such field: a bool has no range).
declare -A CTRL
load_ctrls() {
	local name rest
	while read -r name rest; do
		[ -n "$name" ] && CTRL[$name]=$rest
	done <<<"$(awk '$2 ~ /^0x[0-9a-f]+$/ {
		t = $3; gsub(/[()]/, "", t)
		mn = "-"; mx = "-"; df = "-"; fl = "-"
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^min=/) mn = substr($i, 5)
			else if ($i ~ /^max=/) mx = substr($i, 5)
			else if ($i ~ /^default=/) df = substr($i, 9)
			else if ($i ~ /^flags=/) { fl = substr($0, index($0, "flags=") + 6); gsub(/ /, "", fl) }
		}
		print $1, t, mn, mx, df, fl
	}' "$RESULTS/ctrls.txt")"
}
# check_ctrl NAME TYPE MIN MAX DEFAULT (MIN and MAX "-" for a bool)
check_ctrl() {
	local name=$1 type min max def
	[ -n "${CTRL[$name]:-}" ] || fail "control $name is not listed by --list-ctrls-menus"
	read -r type min max def _ <<<"${CTRL[$name]}"
	assert_eq "$type $min $max $def" "$2 $3 $4 $5" "$name: type min max default"
}
# menu_items NAME: the "N: Label" lines under a menu control.
menu_items() {
	awk -v n="$1" '
		$1 == n { inmenu = 1; next }
		inmenu && $0 ~ /^[[:space:]]+[0-9]+: / { sub(/^[[:space:]]+/, ""); print; next }
		inmenu { exit }' "$RESULTS/ctrls.txt"
}

# ============================================================================
step "camera attached, emulator logging i2c writes"
camera_start -v
log "video node $NODE, emulator log $CAMERA_EMU_LOG"
wait_for 'client_dir >/dev/null' 10 "an ic1280 client bound at $ADDR_HEX"
CLIENT=$(client_dir)
CLIENT_NAME=$(basename "$CLIENT")
BUS=${CLIENT_NAME%%-*}
log "sensor client $CLIENT_NAME ($CLIENT)"
assert_eq "$(cat "$CLIENT/name")" ic1280 "client name"
# The adapter is the bridge's: it hangs below the USB interface.
assert_match "$(readlink -f "/sys/bus/i2c/devices/i2c-$BUS")" "/usb[0-9]+/" "adapter i2c-$BUS sysfs path"
kmsg_all=$(dmesg)
grep -q "ic1280 $CLIENT_NAME: IC1280 rev 0x01 at $ADDR_HEX" <<<"$kmsg_all" ||
	fail "no probe message from ic1280 in the kernel log"

step "i2cdetect -y $BUS shows UU at $ADDR_HEX"
modprobe i2c-dev
wait_for "[ -c /dev/i2c-$BUS ]" 10 "/dev/i2c-$BUS"
run_logged i2cdetect i2cdetect -y "$BUS"
row=$(printf '%02x:' $((ADDR & 0xf0)))
col=$((ADDR & 0x0f))
cell=$(awk -v r="$row" -v c="$col" '$1 == r { print $(c + 2) }' "$RESULTS/i2cdetect.log")
assert_eq "$cell" UU "i2cdetect cell at $ADDR_HEX"
# The sensor is the only device on the bus.
others=$(awk 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "--" && $i != "UU") print $i }' "$RESULTS/i2cdetect.log")
assert_eq "$others" "" "other addresses answering on i2c-$BUS"

step "regmap: the read-only registers and every writable one read, nothing else"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
REGS=/sys/kernel/debug/regmap/$CLIENT_NAME/registers
assert_file "$REGS"
cat "$REGS" >"$RESULTS/regmap.txt"
# reg_val REG: the value regmap's debugfs shows for REG (hex), or nothing.
reg_val() { awk -v r="$(printf '%04x' "$1")" -F': ' '$1 == r { print $2 }' "$RESULTS/regmap.txt"; }
hex8() { printf '%02x' $(($1 & 0xff)); }
assert_eq "$(reg_val "${N[IC1280_REG_CHIP_ID_H]}")" "$(hex8 $((N[IC1280_CHIP_ID] >> 8)))" "CHIP_ID_H (read only)"
assert_eq "$(reg_val "${N[IC1280_REG_CHIP_ID_L]}")" "$(hex8 "${N[IC1280_CHIP_ID]}")" "CHIP_ID_L (read only)"
assert_eq "$(reg_val "${N[IC1280_REG_LINE_LENGTH_L]}")" "$(hex8 "${N[IC1280_LINE_LENGTH_PCK]}")" \
	"LINE_LENGTH_L (read only)"
assert_eq "$(reg_val "${N[IC1280_REG_CONTRAST]}")" "$(hex8 "${N[IC1280_CONTRAST_DEFAULT]}")" "CONTRAST (writable)"
assert_eq "$(reg_val "${N[IC1280_REG_TEST_PATTERN]}")" 00 "TEST_PATTERN (writable)"
# Exactly the registers the header names, no more.
want=$(for name in "${!N[@]}"; do
	if [[ "$name" == IC1280_REG_* ]] && [ "$name" != IC1280_REG_MAX ]; then
		printf '%04x\n' "${N[$name]}"
	fi
done | sort -u | tr '\n' ' ')
assert_eq "$(cut -d: -f1 "$RESULTS/regmap.txt" | sort | tr '\n' ' ')" "$want" "registers regmap can read"
log "regmap reads the header's $(wc -l <"$RESULTS/regmap.txt") registers, no others"

step "--list-ctrls-menus: every sensor control with the register map's ranges"
v4l2-ctl -d "$NODE" --list-ctrls-menus >"$RESULTS/ctrls.txt"
cat "$RESULTS/ctrls.txt"
load_ctrls
check_ctrl brightness int "${N[IC1280_BRIGHTNESS_MIN]}" "${N[IC1280_BRIGHTNESS_MAX]}" "${N[IC1280_BRIGHTNESS_DEFAULT]}"
check_ctrl contrast int "${N[IC1280_CONTRAST_MIN]}" "${N[IC1280_CONTRAST_MAX]}" "${N[IC1280_CONTRAST_DEFAULT]}"
check_ctrl saturation int "${N[IC1280_SATURATION_MIN]}" "${N[IC1280_SATURATION_MAX]}" "${N[IC1280_SATURATION_DEFAULT]}"
check_ctrl hue int "${N[IC1280_HUE_MIN]}" "${N[IC1280_HUE_MAX]}" "${N[IC1280_HUE_DEFAULT]}"
check_ctrl white_balance_automatic bool - - "${N[IC1280_AWB_DEFAULT]}"
check_ctrl red_balance int "${N[IC1280_WB_GAIN_MIN]}" "${N[IC1280_WB_GAIN_MAX]}" "${N[IC1280_WB_GAIN_DEFAULT]}"
check_ctrl blue_balance int "${N[IC1280_WB_GAIN_MIN]}" "${N[IC1280_WB_GAIN_MAX]}" "${N[IC1280_WB_GAIN_DEFAULT]}"
check_ctrl horizontal_flip bool - - 0
check_ctrl vertical_flip bool - - 0
check_ctrl power_line_frequency menu 0 2 "${N[IC1280_PLF_DEFAULT]}"
# V4L2_EXPOSURE_MANUAL = 1, V4L2_EXPOSURE_APERTURE_PRIORITY = 3
check_ctrl auto_exposure menu 0 3 $((N[IC1280_AEC_DEFAULT] ? 3 : 1))
check_ctrl exposure_time_absolute int "${N[IC1280_EXPOSURE_MIN]}" "${N[IC1280_EXPOSURE_MAX]}" "${N[IC1280_EXPOSURE_DEFAULT]}"
check_ctrl analogue_gain int "${N[IC1280_GAIN_MIN]}" "${N[IC1280_GAIN_MAX]}" "${N[IC1280_GAIN_DEFAULT]}"
check_ctrl test_pattern menu 0 $((N[IC1280_TP_COUNT] - 1)) "${N[IC1280_TP_OFF]}"
assert_eq "$(menu_items auto_exposure | tr '\n' '|')" "1: Manual Mode|3: Aperture Priority Mode|" "auto_exposure menu"
assert_eq "$(menu_items power_line_frequency | tr '\n' '|')" "0: Disabled|1: 50 Hz|2: 60 Hz|" "power_line_frequency menu"
assert_eq "$(menu_items test_pattern | wc -l)" "${N[IC1280_TP_COUNT]}" "test_pattern menu entries"
assert_match "$(menu_items test_pattern | head -n 1)" "^0: Disabled$" "test_pattern item 0"
# Auto exposure is on by default: the manual exposure is inactive.
if [ "${N[IC1280_AEC_DEFAULT]}" = 1 ]; then
	assert_match "${CTRL[exposure_time_absolute]}" "inactive" "exposure_time_absolute flags"
fi

step "idle: opening the node and setting controls never touch the sensor"
wait_for '[ "$(runtime_status)" = suspended ]' 10 "the sensor to runtime suspend when idle"
mark=$(emu_lines)
v4l2-ctl -d "$NODE" --all >"$RESULTS/all-idle.txt"
v4l2-ctl -d "$NODE" -c contrast=200 -c red_balance=100
v4l2-ctl -d "$NODE" --set-fmt-video=width=320,height=240,pixelformat=YUYV
assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" "Width/Height[[:space:]]*: 320/240" "format set while idle"
v4l2-ctl -d "$NODE" --set-parm=15 | tee "$RESULTS/set-parm.txt"
assert_eq "$(v4l2-ctl -d "$NODE" -C contrast)" "contrast: 200" "contrast read back while idle"
sleep 1
assert_eq "$(emu_writes_since "$mark")" "" "sensor register writes while idle"
assert_eq "$(runtime_status)" suspended "runtime PM status while idle"

step "stream start writes mode and every control, then streams"
FLL15=$((N[IC1280_PIXEL_RATE] / (N[IC1280_LINE_LENGTH_PCK] * 15)))
# 12 s of 160x120 at 15 fps: long enough to set every control below while
# it runs; the frames stay in the guest's tmpfs.
W=160 H=120 FRAME=$((160 * 120 * 2)) COUNT=180
CAP=/tmp/50-sensor-cap.raw
v4l2-ctl -d "$NODE" --set-fmt-video=width=$W,height=$H,pixelformat=YUYV
mark=$(emu_lines)
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=$COUNT --stream-to="$CAP" \
	>"$RESULTS/stream1.log" 2>&1 &
cap=$!
expect_write "$mark" "${N[IC1280_REG_MODE_SELECT]}" "${N[IC1280_MODE_STREAMING]}" 20
writes=$(emu_writes_since "$mark")
echo "$writes" >"$RESULTS/stream-start-writes.txt"
reg_line "${N[IC1280_REG_MODE_SELECT]}" "${N[IC1280_MODE_STREAMING]}"
before=${writes%%"$REPLY"*}
expect_writes_in "$before" "before MODE_SELECT streaming" \
	"${N[IC1280_REG_OUTPUT_FORMAT]} ${N[IC1280_FMT_YUYV]}" \
	"${N[IC1280_REG_X_OUTPUT_SIZE_H]} $((W >> 8))" "${N[IC1280_REG_X_OUTPUT_SIZE_L]} $((W & 255))" \
	"${N[IC1280_REG_Y_OUTPUT_SIZE_H]} $((H >> 8))" "${N[IC1280_REG_Y_OUTPUT_SIZE_L]} $((H & 255))" \
	"${N[IC1280_REG_FRAME_LENGTH_H]} $((FLL15 >> 8))" "${N[IC1280_REG_FRAME_LENGTH_L]} $((FLL15 & 255))" \
	"${N[IC1280_REG_CONTRAST]} 200" \
	"${N[IC1280_REG_SATURATION]} ${N[IC1280_SATURATION_DEFAULT]}" \
	"${N[IC1280_REG_BRIGHTNESS]} ${N[IC1280_BRIGHTNESS_DEFAULT]}" \
	"${N[IC1280_REG_ANALOG_GAIN]} ${N[IC1280_GAIN_DEFAULT]}" \
	"${N[IC1280_REG_AEC_ENABLE]} ${N[IC1280_AEC_DEFAULT]}" \
	"${N[IC1280_REG_AWB_ENABLE]} ${N[IC1280_AWB_DEFAULT]}" \
	"${N[IC1280_REG_FLIP]} 0" \
	"${N[IC1280_REG_PLF]} ${N[IC1280_PLF_DEFAULT]}" \
	"${N[IC1280_REG_TEST_PATTERN]} ${N[IC1280_TP_OFF]}"
log "stream start: register writes, then MODE_SELECT streaming"
assert_eq "$(runtime_status)" active "runtime PM status while streaming"

step "controls set while streaming reach the sensor at once"
mark=$(emu_lines)
v4l2-ctl -d "$NODE" -c brightness=32
expect_write "$mark" "${N[IC1280_REG_BRIGHTNESS]}" 32 5
# The rest from one process; the writes are logged before its ioctls
# return, whether it sets them one by one or a class at a time.
v4l2-ctl -d "$NODE" -c hue=-90,horizontal_flip=1,vertical_flip=1,saturation=10 \
	-c test_pattern=1,power_line_frequency=2,analogue_gain=64 \
	-c auto_exposure=1,exposure_time_absolute=250 \
	-c white_balance_automatic=0,blue_balance=77
expect_write "$mark" "${N[IC1280_REG_AWB_ENABLE]}" 0 10
# Cached values would only show up at the next start: these writes must
# have happened while this stream was still running.
kill -0 "$cap" 2>/dev/null ||
	fail "the capture ended before all controls were set (raise COUNT)"
ctl_writes=$(emu_writes_since "$mark")
echo "$ctl_writes" >"$RESULTS/control-writes.txt"
reg_line "${N[IC1280_REG_MODE_SELECT]}" "${N[IC1280_MODE_STANDBY]}"
[[ "$ctl_writes" != *"$REPLY"* ]] || fail "standby written while streaming"
expect_writes_in "$ctl_writes" "while streaming" \
	"${N[IC1280_REG_HUE_H]} $((-90 >> 8 & 255))" "${N[IC1280_REG_HUE_L]} $((-90 & 255))" \
	"${N[IC1280_REG_FLIP]} $((N[IC1280_FLIP_H] | N[IC1280_FLIP_V]))" \
	"${N[IC1280_REG_SATURATION]} 10" \
	"${N[IC1280_REG_TEST_PATTERN]} ${N[IC1280_TP_COLOR_BARS]}" \
	"${N[IC1280_REG_PLF]} ${N[IC1280_PLF_60HZ]}" \
	"${N[IC1280_REG_ANALOG_GAIN]} 64" \
	"${N[IC1280_REG_EXPOSURE_H]} 0" "${N[IC1280_REG_EXPOSURE_L]} 250" \
	"${N[IC1280_REG_AEC_ENABLE]} 0" \
	"${N[IC1280_REG_RED_GAIN]} 100" "${N[IC1280_REG_BLUE_GAIN]} 77" \
	"${N[IC1280_REG_AWB_ENABLE]} 0"
log "controls while streaming: all written"

wait "$cap" || { cat "$RESULTS/stream1.log"; fail "the capture failed"; }

step "stream stop: standby, then runtime suspend"
expect_write "$mark" "${N[IC1280_REG_MODE_SELECT]}" "${N[IC1280_MODE_STANDBY]}" 5
wait_for '[ "$(runtime_status)" = suspended ]' 10 "runtime suspend after the stream"

step "the picture follows: the last frame's stamp carries the new settings"
size=$(stat -c %s "$CAP")
assert_eq $((size % FRAME)) 0 "capture size is a whole number of ${W}x${H} YUYV frames"
assert_eq $((size / FRAME)) "$COUNT" "frames captured"
tail -c "$FRAME" "$CAP" >"$RESULTS/last-frame.yuyv"
head -c "$FRAME" "$CAP" >"$RESULTS/first-frame.yuyv"
rm -f "$CAP"
load_stamp "$RESULTS/last-frame.yuyv"
assert_eq "$(head -c 4 "$RESULTS/last-frame.yuyv")" ICAM "stamp magic"
assert_eq "$(stamp_u8 FORMAT)" "${N[IC1280_FMT_YUYV]}" "stamp format"
assert_eq "$(stamp_u16 WIDTH)" "$W" "stamp width"
assert_eq "$(stamp_u16 HEIGHT)" "$H" "stamp height"
assert_eq "$(stamp_u16 FLL)" "$FLL15" "stamp frame length"
assert_eq "$(stamp_s8 BRIGHTNESS)" 32 "stamp brightness"
assert_eq "$(stamp_u8 CONTRAST)" 200 "stamp contrast"
assert_eq "$(stamp_u8 SATURATION)" 10 "stamp saturation"
assert_eq "$(stamp_s16 HUE)" -90 "stamp hue"
assert_eq "$(stamp_u8 FLIP)" 3 "stamp flip"
assert_eq "$(stamp_u8 TEST_PATTERN)" "${N[IC1280_TP_COLOR_BARS]}" "stamp test pattern"
assert_eq "$(stamp_u8 GAIN)" 64 "stamp analog gain"
assert_eq "$(stamp_u16 EXPOSURE)" 250 "stamp exposure (manual)"
assert_eq "$(stamp_u8 RED_GAIN)" 100 "stamp red gain (manual)"
assert_eq "$(stamp_u8 BLUE_GAIN)" 77 "stamp blue gain (manual)"
assert_eq "$(stamp_u8 FLAGS)" 0 "stamp AEC/AWB flags"
# The first frame was taken with what was set before the stream.
load_stamp "$RESULTS/first-frame.yuyv"
assert_eq "$(stamp_u8 CONTRAST)" 200 "first frame contrast"
assert_eq "$(stamp_u8 FLIP)" 0 "first frame flip"
assert_eq "$(stamp_u8 TEST_PATTERN)" "${N[IC1280_TP_OFF]}" "first frame test pattern"
assert_eq "$(stamp_u8 FLAGS)" $((N[ISOCAM_STAMP_FLAG_AEC] | N[ISOCAM_STAMP_FLAG_AWB])) "first frame AEC/AWB flags"

step "settings persist across opens and streams"
assert_eq "$(v4l2-ctl -d "$NODE" -C brightness)" "brightness: 32" "brightness after the stream"
assert_eq "$(v4l2-ctl -d "$NODE" -C horizontal_flip)" "horizontal_flip: 1" "hflip after the stream"
assert_match "$(v4l2-ctl -d "$NODE" --get-fmt-video)" "Width/Height[[:space:]]*: $W/$H" "format after the stream"
assert_match "$(v4l2-ctl -d "$NODE" --get-parm)" "Frames per second: 15\.000" "frame rate after the stream"
mark=$(emu_lines)
v4l2-ctl -d "$NODE" --stream-mmap --stream-count=3 --stream-to=/dev/null >"$RESULTS/stream2.log" 2>&1 ||
	{ cat "$RESULTS/stream2.log"; fail "the second capture failed"; }
expect_write "$mark" "${N[IC1280_REG_BRIGHTNESS]}" 32 5
expect_write "$mark" "${N[IC1280_REG_TEST_PATTERN]}" 1 5
expect_write16 "$mark" "${N[IC1280_REG_FRAME_LENGTH_H]}" "$FLL15" 5

step "log-status prints the sensor's state"
wait_for '[ "$(runtime_status)" = suspended ]' 10 "runtime suspend after the second stream"
kmsg_mark "50-sensor log-status"
v4l2-ctl -d "$NODE" --log-status >"$RESULTS/log-status.txt" 2>&1
sleep 0.5
kmsg_since "50-sensor log-status" >"$RESULTS/log-status.kmsg"
cat "$RESULTS/log-status.kmsg"
for want in \
	"ic1280 $CLIENT_NAME: mode: standby, power: suspended" \
	"ic1280 $CLIENT_NAME: format: YUYV8_2X8 ${W}x$H" \
	"ic1280 $CLIENT_NAME: frame rate: 15 fps (frame length $FLL15 lines)" \
	"ic1280 $CLIENT_NAME: Brightness: 32" \
	"ic1280 $CLIENT_NAME: Test Pattern: Color Bars" \
	"ic1280 $CLIENT_NAME: Auto Exposure: Manual Mode"; do
	grep -qF "$want" "$RESULTS/log-status.kmsg" || fail "log-status lacks '$want'"
done

step "a wrong chip id fails the bind cleanly"
camera_stop
wait_for '! client_dir >/dev/null' 10 "the ic1280 client to go away with the camera"
kmsg_mark "50-sensor wrong chip id"
camera_start --expect-fail -v --chip-id=0x1234
wait_for "kmsg_has '50-sensor wrong chip id' 'CHIP_ID at $ADDR_HEX on .* reads 0x1234, expected 0x1280: not an IC1280'" \
	20 "ic1280's wrong chip id message"
sleep 2
kmsg_since "50-sensor wrong chip id" | tee "$RESULTS/wrong-chip.kmsg"
! client_dir >/dev/null || fail "an ic1280 client is bound to a wrong chip"
[ -z "$(camera_video_node 2>/dev/null)" ] || fail "a video node appeared for a camera with a wrong sensor"
camera_stop

step "no answer at all fails the bind cleanly"
kmsg_mark "50-sensor no answer"
camera_start --expect-fail -v --fault=nak=1/1
wait_for "kmsg_has '50-sensor no answer' 'no sensor answers at $ADDR_HEX on .*: reading CHIP_ID failed'" \
	20 "ic1280's no-answer message"
sleep 2
kmsg_since "50-sensor no answer" | tee "$RESULTS/no-answer.kmsg"
! client_dir >/dev/null || fail "an ic1280 client is bound though nothing answers"
[ -z "$(camera_video_node 2>/dev/null)" ] || fail "a video node appeared for a camera whose sensor never answered"
camera_stop

log "50-sensor: ok"
