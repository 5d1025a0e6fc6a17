#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The media graph: each camera has a media device whose graph
# is the sensor and the video node, linked by an enabled, immutable link,
# and a /dev/v4l-subdevN node for the sensor.
#  - media-ctl -p shows both entities, the link, and both device nodes;
#  - the sensor's subdev node reports the video node's format and is read
#    only (the video node configures the sensor), but its controls are
#    the video node's: a value set on one reads back on the other;
#  - v4l2-compliance -m on the media device (the video node and the
#    subdev node with it): 0 failed, 0 warnings, but for the subdev
#    node's false failures that compliance-known.txt lists and explains;
#  - unplug with the subdev node open and subscribed to control events,
#    and with the media node open: each ioctl then fails, the handles
#    close cleanly (nothing is freed before its last user is gone).
# vm-timeout: 900
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd media-ctl v4l2-ctl v4l2-compliance python3

driver_setup
plug
wait_for 'MEDIA=$(cam_media)' 10 "the camera's media device"
log "media device $MEDIA, video node $NODE"

step "media-ctl -p"
media-ctl -d "$MEDIA" -p >"$RESULTS/media-ctl.txt" 2>&1 || {
	cat "$RESULTS/media-ctl.txt" >&2
	fail "media-ctl -p failed"
}
cat "$RESULTS/media-ctl.txt"
graph=$(cat "$RESULTS/media-ctl.txt")
assert_match "$graph" 'model +isocam' "the media device's model"
sensor=$(sed -n 's/^- entity [0-9]*: \(ic1280 [^(]*\) (1 pad, 1 link.*/\1/p' <<<"$graph")
sensor=${sensor% }
[ -n "$sensor" ] || fail "no ic1280 entity with one pad and one link"
SUBDEV=$(awk -v e="$sensor" 'index($0, ": " e " (") { s = 1 } s && /device node name/ { print $4; exit }' \
	<<<"$graph")
assert_match "$SUBDEV" '^/dev/v4l-subdev[0-9]+$' "the sensor's device node"
wait_for "[ -c $SUBDEV ]" 10 "$SUBDEV"
video=$(awk -v n="$NODE" '/^- entity/ { e = $0 } $0 ~ "device node name " n "$" { print e; exit }' <<<"$graph")
assert_match "$video" '\(1 pad, 1 link' "the video node's entity: $video"
vname=$(sed -n 's/^- entity [0-9]*: \(.*\) (1 pad.*/\1/p' <<<"$video")
grep -qF -- "-> \"$vname\":0 [ENABLED,IMMUTABLE]" "$RESULTS/media-ctl.txt" ||
	fail "no enabled, immutable link from $sensor to \"$vname\""
grep -qF -- "<- \"$sensor\":0 [ENABLED,IMMUTABLE]" "$RESULTS/media-ctl.txt" ||
	fail "the video node's pad does not show the sensor's link"
log "$sensor ($SUBDEV) -> $vname ($NODE), enabled and immutable"

step "the subdev node has the video node's format"
v4l2-ctl -d "$NODE" -v width=320,height=240,pixelformat=YUYV >/dev/null || fail "set-fmt 320x240"
sfmt=$(v4l2-ctl -d "$SUBDEV" --get-subdev-fmt pad=0 2>&1) || fail "get-subdev-fmt: $sfmt"
log "$(tr '\n' ' ' <<<"$sfmt")"
assert_match "$sfmt" 'Width/Height +: 320/240' "the sensor's active format"
if out=$(v4l2-ctl -d "$SUBDEV" --set-subdev-fmt pad=0,width=640,height=480 2>&1); then
	fail "the read-only subdev node accepted a format: $out"
fi
log "set-subdev-fmt refused: $(tr '\n' ' ' <<<"$out")"
out=$(python3 "$ISOCAM_ROOT/tests/vm/lib/holder.py" subdevtry "$SUBDEV") || fail "TRY frame interval: $out"
log "$out"
v4l2-ctl -d "$SUBDEV" -c brightness=17 || fail "brightness through $SUBDEV"
assert_eq "$(v4l2-ctl -d "$NODE" -C brightness | awk '{ print $2 }')" 17 \
	"brightness on $NODE after setting it through $SUBDEV"
v4l2-ctl -d "$NODE" -c brightness=0

step "v4l2-compliance -m $MEDIA"
set +e
v4l2-compliance -m "$MEDIA" >"$RESULTS/compliance-media.log" 2>&1
st=$?
set -e
total=$(grep -a '^Grand Total for' "$RESULTS/compliance-media.log" || true)
grep -a -E '^Total for|^Grand Total' "$RESULTS/compliance-media.log" || true
[ -n "$total" ] || { tail -n 30 "$RESULTS/compliance-media.log" >&2; fail "v4l2-compliance -m printed no grand total (status $st)"; }
grep -a -E 'fail:|warn:' "$RESULTS/compliance-media.log" | head -n 20 || true
grep -aq "^Total for .*$SUBDEV" "$RESULTS/compliance-media.log" ||
	fail "v4l2-compliance -m did not test $SUBDEV"
# The video and media nodes: clean. The read-only subdev node: clean but
# for v4l2-compliance's own false failures of its version
# (tests/vm/harness/compliance-known.txt says which and why), each named here.
# (1.22 names no driver for a subdev node: "Total for device ...".)
for n in "$NODE" "$MEDIA"; do
	t=$(grep -aE "^Total for (isocam )?device $n:" "$RESULTS/compliance-media.log") ||
		fail "v4l2-compliance -m did not test $n"
	assert_match "$t" 'Failed: 0, Warnings: 0' "v4l2-compliance -m on $n"
done
t=$(grep -aE "^Total for (isocam )?device $SUBDEV:" "$RESULTS/compliance-media.log") ||
	fail "v4l2-compliance -m did not test $SUBDEV"
assert_match "$t" 'Warnings: 0' "v4l2-compliance -m on $SUBDEV"
ver=$(v4l2-compliance --version | sed -n 's/^v4l2-compliance \([0-9.]*\),.*/\1/p')
known=0
while IFS= read -r line; do
	what=${line#*fail: }
	grep -qxF "$ver	$what" "$ISOCAM_ROOT/tests/vm/harness/compliance-known.txt" ||
		fail "v4l2-compliance $ver -m: fail: $what"
	known=$((known + 1))
done < <(grep -a 'fail: ' "$RESULTS/compliance-media.log")
log "$total ($known fail lines are v4l2-compliance $ver's own on a read-only subdev: tests/vm/harness/compliance-known.txt)"

step "unplug with the subdev node open and subscribed to events"
hold subdev "$SUBDEV"
unplug
release subdev
[ ! -e "$SUBDEV" ] || wait_for "[ ! -e $SUBDEV ]" 10 "$SUBDEV to go"

step "unplug with the media node open"
plug
wait_for 'MEDIA=$(cam_media)' 10 "the camera's media device"
hold media "$MEDIA"
unplug
release media
wait_for '[ -z "$(ls /sys/bus/media/devices 2>/dev/null)" ]' 10 "the media device to go"
stop_emu
