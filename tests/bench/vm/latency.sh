#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (make bench): how soon the camera answers, in frame
# intervals and beside vivid in the same boot.
#  - STREAMON to the first frame at 640x480 YUYV 30 fps: the ioctl itself
#    (alt setting, the sensor's i2c writes over control transfers, the
#    URBs), then its return to the first DQBUF and to the first buffer's
#    start of exposure; the median and worst of $RUNS starts, and the i2c
#    transfers each start and stop cost. vivid, at the same format, is
#    the reference: a driver with no bus at all.
#  - A control written while streaming: from the control's change event
#    to the DQBUF of the first frame that shows it (the frame the camera
#    was about to capture when the register was written, from the
#    emulator's log).
# Prints lines starting "bench:"; asserts nothing about speed.
# vm-timeout: 1800
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl awk
STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"
RUNS=10
INTERVAL_US=33333

# starts NODE NAME: RUNS streams of 3 frames; prints "median worst" of
# the ioctl, its return to the first DQBUF, and its call to the first
# frame's stamp (us), one line: "on_med on_max dq_med dq_max st_med st_max".
starts() {
	local node=$1 name=$2 i r on t f=$RESULTS/starts-$2.txt
	: >"$f"
	for i in $(seq 1 "$RUNS"); do
		r=$("$STREAM" -b 4 -n 3 -t 10000 -T "$RESULTS/first-$name.txt" "$node") ||
			fail "isocam-stream on $name: $r"
		assert_match "$r" 'end=count' "$name's stream $i"
		on=$(field streamon_ns "$r")
		t=$(awk 'NR == 1 { print $2 }' "$RESULTS/first-$name.txt")
		echo "$(field streamon_us "$r") $(field first_us "$r") $(((t - on) / 1000))" >>"$f"
	done
	for c in 1 2 3; do
		sort -n -k "$c,$c" "$f" | awk -v c="$c" '{ v[NR] = $c }
			END { printf "%d %d ", v[int((NR + 1) / 2)], v[NR] }'
	done
	echo
}

report() {
	local name=$1 on_med on_max dq_med dq_max st_med
	read -r on_med on_max dq_med dq_max st_med _ <<<"$2"
	echo "bench: start $name: STREAMON $on_med us (worst $on_max), then first DQBUF $dq_med us (worst $dq_max); from the call to the first DQBUF $(awk -v a="$on_med" -v b="$dq_med" -v i="$INTERVAL_US" 'BEGIN { printf "%.1f", (a + b) / i }') frame intervals, after its return $(awk -v b="$dq_med" -v i="$INTERVAL_US" 'BEGIN { printf "%.1f", b / i }'); first stamp $((st_med / 1000)) ms after the call"
}

# vivid first: the reference, with no USB and no i2c in the path.
step "vivid, 640x480 YUYV at 30 fps"
vivid_start
v4l2-ctl -d "$VIVID" -v width=640,height=480,pixelformat=YUYV -p 30 >/dev/null ||
	fail "vivid: 640x480 YUYV at 30 fps"
"$STREAM" -n 30 "$VIVID" >/dev/null || fail "vivid warm-up"
VIVID_STARTS=$(starts "$VIVID" vivid)

step "isocam, 640x480 YUYV at 30 fps"
camera_start_vga -v
i2c0=$(cam_stat i2c_transfers)
ISOCAM_STARTS=$(starts "$NODE" isocam)
i2c1=$(cam_stat i2c_transfers)

report vivid "$VIVID_STARTS"
report isocam "$ISOCAM_STARTS"
echo "bench: start isocam: $(((i2c1 - i2c0) / RUNS)) i2c transfers a start and stop; STREAMON $(awk -v a="${ISOCAM_STARTS%% *}" -v b="${VIVID_STARTS%% *}" 'BEGIN { printf "%.0f", (b > 0 ? a / b : 0) }')x vivid's"

step "a control written while streaming"
BRIGHTNESS=0x00980900
"$STREAM" -b 8 -n 120 -t 10000 -e "$BRIGHTNESS" -T "$RESULTS/ctrl.txt" "$NODE" \
	>"$RESULTS/ctrl-stream.txt" &
pid=$!
camera_track "$pid"
wait_for "[ \$(grep -c '^[0-9]' $RESULTS/ctrl.txt 2>/dev/null) -ge 30 ]" 30 "30 frames"
lines=$(wc -l <"$CAMERA_EMU_LOG")
v4l2-ctl -d "$NODE" -c brightness=20 || fail "v4l2-ctl -c brightness=20"
wait "$pid" || fail "isocam-stream: $(cat "$RESULTS/ctrl-stream.txt")"
assert_match "$(cat "$RESULTS/ctrl-stream.txt")" 'missing=0 end=count' "the stream with a control change"
frame=$(tail -n +"$((lines + 1))" "$CAMERA_EMU_LOG" |
	sed -n 's/.* write reg .* (next frame \([0-9]*\))$/\1/p' | head -n 1)
[ -n "$frame" ] || fail "the camera saw no register write"
ev=$(awk '$1 == "E" { print $2; exit }' "$RESULTS/ctrl.txt")
[ -n "$ev" ] || fail "no control event in the capture's log"
dq=$(awk -v f="$frame" '$1 == f { print $3; exit }' "$RESULTS/ctrl.txt")
[ -n "$dq" ] || fail "frame $frame was not captured"
after=$(awk -v e="$ev" '$1 != "E" && $3 > e { n++ } $1 == "'"$frame"'" { print n; exit }' "$RESULTS/ctrl.txt")
echo "bench: control brightness: the first frame that shows it (camera frame $frame) was dequeued $(((dq - ev) / 1000000)) ms after the change event, $(awk -v d="$((dq - ev))" -v i="$INTERVAL_US" 'BEGIN { printf "%.1f", d / 1000 / i }') frame intervals; the $after-th frame dequeued after it"
cat "$DBG/stats" >"$RESULTS/stats.txt"
camera_stop
