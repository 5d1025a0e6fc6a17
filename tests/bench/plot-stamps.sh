#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/plot-stamps.sh OUT.png RECOVERED.txt ARRIVAL.txt
# The timestamp benchmark's picture (make bench): for each buffer, how far
# the spacing of its stamp from the one before departs from the frame
# interval times their sequence distance, in microseconds, with the stamps
# recovered from the camera's clock (hwtimestamps=Y) beside those taken at
# the first packet's arrival (hwtimestamps=N); below, the recovered ones on
# their own scale. Inputs are isocam-stream -T files ("sequence stamp_ns
# dqbuf_ns bytesused") of a 30 fps stream; the first second (the clock's
# warm-up) is left out, as in the figures.
set -euo pipefail

[ $# = 3 ] || { echo "usage: $0 OUT.png RECOVERED.txt ARRIVAL.txt" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "plot-stamps: gnuplot is not installed (make deps)" >&2; exit 1; }
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# departure FILE: "frame departure_us" a line.
departure() {
	awk -v iv=33333333 'NR > 31 && $1 != "E" {
			printf "%d %.1f\n", $1, (($2 - ts) - ($1 - seq) * iv) / 1e3
		}
		$1 != "E" { seq = $1; ts = $2 }' "$1"
}
departure "$2" >"$tmp/rec"
departure "$3" >"$tmp/arr"
[ -s "$tmp/rec" ] && [ -s "$tmp/arr" ] || { echo "plot-stamps: too few stamps in $2 or $3" >&2; exit 1; }

gnuplot <<EOF
set terminal pngcairo size 900,640 font "sans,10"
set output "$out"
set multiplot layout 2,1 title "Buffer timestamp spacing minus the frame interval, 640x480 YUYV at 30 fps under TCG"
set xlabel "frame (sequence number)"
set ylabel "departure from 33.333 ms (us)"
set grid
set key top right
plot "$tmp/arr" using 1:2 with lines lw 1 lc rgb "#d95f02" title "arrival (hwtimestamps=N)", \\
     "$tmp/rec" using 1:2 with lines lw 2 lc rgb "#1b9e77" title "recovered from PTS/SCR (default)"
plot "$tmp/rec" using 1:2 with lines lw 1 lc rgb "#1b9e77" title "recovered from PTS/SCR, on its own scale"
unset multiplot
EOF
echo "plot-stamps: $out"
