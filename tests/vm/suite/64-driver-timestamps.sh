#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Timestamps: the driver stamps each buffer with its start of
# exposure, recovered from the camera's clock (payload PTS and SCR, with
# core/isocam_clock.c):
#  - every buffer is flagged monotonic and start-of-exposure, stamped
#    after the one before it and before the DQBUF that returns it, also
#    when a late consumer makes the driver drop frames;
#  - debugfs says the stamps come from the camera's clock, which took a
#    sample from every packet and started over once per stream, and no
#    stamp had to be raised to keep them increasing;
#  - with hwtimestamps=N (taken at stream start) the stamps are the first
#    packet's arrival: still monotonic, no clock samples, and later than
#    the recovered ones by at least half the emulated sensor's exposure
#    (10 ms by default), which the recovered ones precede the readout by.
# How evenly each kind is spaced is logged; judging it is `make bench`'s.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl

STREAM=$ISOCAM_BUILD/isocam-stream
[ -x "$STREAM" ] || fail "$STREAM is not built (make)"

stamps_camera_start
PARAM=$HWTS
assert_eq "$(cat "$PARAM")" Y "hwtimestamps by default"

# stream MODE: 150 frames with hwtimestamps=MODE; sets R (isocam-stream's
# line) and the deltas of the clock's counters.
stream() {
	echo "$1" >"$PARAM"
	local s0 r0 c0 st0
	s0=$(cam_stat clock_samples)
	r0=$(cam_stat clock_resets)
	c0=$(cam_stat ts_clamped)
	st0=$(cam_stat streams)
	R=$("$STREAM" -b 8 -n 150 -t 10000 "$NODE") || fail "isocam-stream: $R"
	assert_match "$R" 'end=count' "the stream with hwtimestamps=$1"
	assert_match "$R" ' error=0 ' "error frames with hwtimestamps=$1"
	assert_eq "$(field ts_bad "$R")" 0 "buffers with a bad timestamp (hwtimestamps=$1): $R"
	SAMPLES=$(($(cam_stat clock_samples) - s0))
	RESETS=$(($(cam_stat clock_resets) - r0))
	CLAMPED=$(($(cam_stat ts_clamped) - c0))
	assert_eq $(($(cam_stat streams) - st0)) 1 "streams started"
}

step "stamps from the camera's clock (hwtimestamps=Y)"
stream Y
assert_eq "$(cam_stat timestamps)" "camera clock" "the stamps' source in debugfs"
# 640x480 YUYV is about 200 packets a frame, each with an SCR.
assert_ge "$SAMPLES" $((150 * 100)) "clock samples (one per packet)"
assert_eq "$RESETS" 1 "clock starts (one per stream)"
assert_eq "$CLAMPED" 0 "stamps raised to keep them increasing"
soe_lag=$(field ts_lag_us "$R")
log "camera clock: $R; $SAMPLES samples"

step "stamps of the first packet's arrival (hwtimestamps=N)"
stream N
assert_eq "$(cam_stat timestamps)" "arrival" "the stamps' source in debugfs"
assert_eq "$SAMPLES" 0 "clock samples with the clock off"
arr_lag=$(field ts_lag_us "$R")
log "arrival: $R"
# DQBUF minus stamp: the start of exposure lies the exposure before the
# readout that the first packet starts.
assert_ge "$soe_lag" $((arr_lag + 5000)) "stamp-to-DQBUF time of recovered stamps (us), against arrival stamps + 5 ms"

step "a late consumer: frames dropped, stamps still in order"
echo Y >"$PARAM"
R=$("$STREAM" -b 2 -l 150 -n 20 -t 10000 "$NODE") || fail "isocam-stream: $R"
assert_match "$R" 'end=count' "the late consumer's stream"
assert_ge "$(field missing "$R")" 20 "sequence numbers skipped"
assert_eq "$(field ts_bad "$R")" 0 "buffers with a bad timestamp (late consumer): $R"
log "late consumer: $R"

cat "$DBG/stats" >"$RESULTS/stats.txt"
detach_camera
stop_emu
unload_isocam_modules
log "64-driver-timestamps: ok (recovered lag ${soe_lag} us, arrival lag ${arr_lag} us)"
