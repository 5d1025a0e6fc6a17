#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Handles of different kinds held together across an unplug, closed
# afterwards in every order. A handle keeps what it uses alive only if
# the driver's ownership is right for every mix: a video handle
# subscribed to the sensor's control events and the sensor's subdev
# node, say, share the sensor's controls, and whichever closes last must
# not find them freed (on the debug kernel KASAN reports such a use).
# Kinds (tests/vm/lib/holder.py): video (open), stream (a video handle
# streaming: the unplug comes mid-stream), ctrl (a video handle writing
# brightness over and over: the unplug comes mid-control), events (video,
# subscribed to brightness), subdev (subscribed too), media, i2c
# (/dev/i2c-N), dmabuf (a buffer exported and mapped by another process).
# Cells, each a plug, the handles, the unplug and the closes:
#  - every ordered pair of kinds, closed first one, then the other (56);
#  - all eight at once, closed in the order listed and in reverse (2).
# The unplug comes idle, mid-stream (a cell with stream) or mid-control
# (with ctrl). HANDLE_PAIRS="a:b ..." runs only those pairs (and not the
# all-eight cells). HANDLE_SUBSETS=all (make lifetime) runs every subset
# of two or more kinds instead (247 cells), each closed in an order drawn
# from HANDLE_SEED (logged; a run without it draws a new seed, so runs
# cover the orders between them).
# vm-timeout: 900
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd python3 usbip

KINDS=(video stream ctrl events subdev media i2c dmabuf)

modprobe i2c-dev
driver_setup

# open_handle KIND: hold one handle of KIND on the plugged camera.
open_handle() {
	local path
	case "$1" in
	video | stream | ctrl | events | dmabuf) path=$NODE ;;
	subdev) wait_for 'path=$(cam_subdev)' 10 "the sensor's subdev node" ;;
	media) wait_for 'path=$(cam_media)' 10 "the camera's media device" ;;
	i2c) wait_for 'path=$(cam_i2c_node)' 10 "the camera's i2c-dev node" ;;
	*) fail "no handle kind $1" ;;
	esac
	hold_as "$1" "$1" "$path"
}

# cell KIND... : open each, unplug, close them in the order given. They
# open in one order whatever the cell: dmabuf's handle takes the buffer
# queue and gives it up before stream's needs it.
OPEN_ORDER=(dmabuf video stream ctrl events subdev media i2c)
cell() {
	local k
	plug
	for k in "${OPEN_ORDER[@]}"; do
		if [[ " $* " == *" $k "* ]]; then open_handle "$k"; fi
	done
	unplug
	for k in "$@"; do release_as "$k"; done
	CELLS=$((CELLS + 1))
}

CELLS=0
t0=$EPOCHREALTIME
if [ "${HANDLE_SUBSETS:-}" = all ]; then
	seed=${HANDLE_SEED:-$((EPOCHSECONDS % 100000))}
	RANDOM=$seed
	log "every subset of two or more kinds, closed in orders drawn from HANDLE_SEED=$seed"
	for ((m = 1; m < (1 << ${#KINDS[@]}); m++)); do
		set=()
		for i in "${!KINDS[@]}"; do
			if ((m & (1 << i))); then set+=("${KINDS[$i]}"); fi
		done
		[ ${#set[@]} -ge 2 ] || continue
		for ((i = ${#set[@]} - 1; i > 0; i--)); do
			j=$((RANDOM % (i + 1)))
			t=${set[$i]}
			set[i]=${set[$j]}
			set[j]=$t
		done
		step "unplug holding ${set[*]}, closed in that order"
		cell "${set[@]}"
	done
elif [ -n "${HANDLE_PAIRS:-}" ]; then
	for p in $HANDLE_PAIRS; do
		step "unplug holding ${p%%:*} and ${p##*:}, closed in that order"
		cell "${p%%:*}" "${p##*:}"
	done
else
	for a in "${KINDS[@]}"; do
		for b in "${KINDS[@]}"; do
			[ "$a" != "$b" ] || continue
			step "unplug holding $a and $b, closed in that order"
			cell "$a" "$b"
		done
	done
	step "unplug holding all eight, closed in order"
	cell "${KINDS[@]}"
	step "unplug holding all eight, closed in reverse"
	cell dmabuf i2c media subdev events ctrl stream video
fi
stop_emu
log "$CELLS cells in $(((${EPOCHREALTIME/./} - ${t0/./}) / 1000000)) s of guest time"
