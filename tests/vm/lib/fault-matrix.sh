# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/vm/lib/fault-matrix.sh: the fault matrix, for guest scripts: the
# 62-driver-fault-* scripts each declare a group of rows (matrix_row) and
# run them (matrix_main); being several scripts, the groups run in
# parallel VMs. Source after lib/base.sh, lib/camera.sh and lib/driver.sh.
#
# A row is an emulator behaviour (a --hostile mode or a --fault spec), or
# an event on the host's side ("@reset", a USB reset; "@sleep", a system
# sleep of the camera's device: lib/pause.sh's camera_usbreset and
# camera_usbsleep, so a script with such rows sources it), and the outcomes the driver
# may show for it; a column is the state the camera is in when the
# behaviour starts or the event comes:
#   probe   from the plug on (the emulator starts with it)
#   idle    armed (SIGUSR2) with the camera plugged and idle
#   stream  armed while a stream runs
#   ctrl    armed while another process writes controls
#   i2c     armed while another process reads the sensor over /dev/i2c-N
# After the behaviour starts, each cell exercises the camera (a stream of
# up to 15 frames, a control write, an i2c read), unplugs it and checks:
#   - the kernel log since the cell began is clean (kernel-bad.re);
#   - no stream stalled silently: every stream ended with its frames, with
#     frames flagged V4L2_BUF_FLAG_ERROR, with a DQBUF error, or with
#     STREAMON refused, twice on one handle (isocam-stream's end=stall
#     fails the cell, and a failed start must not upset vb2);
#   - a probe that did not bind said why in one error line of isocam's
#     (or the USB core refused the device first);
#   - the unplug finished within 20 s;
#   - what the driver did is one of the row's allowed outcomes.
# After each row: rmmod is clean, and a well-behaved camera streams.
#
# Outcome words (a cell is "WORD[+WORD...]"):
#   refused  isocam's probe failed with an error line, no video node
#   core     the USB core never bound the interface (bad descriptors)
#   good     every frame arrived good
#   mixed    good frames and frames flagged ERROR
#   errfr    only frames flagged ERROR
#   eio      the stream ended with DQBUF/poll failing EIO (after N frames)
#   gone     the device went away (ENODEV), e.g. USB/IP dropped it
#   son      STREAMON failed
#   cerr     a control write or an i2c read failed

: "${ISOCAM_ROOT:?source tests/vm/lib/base.sh first}"

MATRIX_STREAM=$ISOCAM_BUILD/isocam-stream
MATRIX_BAD_RE=$ISOCAM_ROOT/tests/vm/harness/kernel-bad.re
MATRIX_ROWS=()
MATRIX_FAILS=0
MATRIX_EVENT=

# The driver's stall watchdog (isocam's stall_ms) in every cell: a stream
# that delivers nothing ends after 1 s instead of the default 3. The rule
# checked is that it ends; some 40 cells wait for it while the hostile
# camera keeps the guest busy (about 3 s of wall time per guest second
# under TCG). A row whose camera is slow on purpose asks for more.
MATRIX_STALL_MS=${MATRIX_STALL_MS:-1000}

# matrix_row NAME EMU_ARG STATES ALLOWED [STALL_MS]: NAME is the row's
# label, EMU_ARG what isocam-emu gets (--hostile=... or --fault=..., and
# --transport=bulk for a bulk row; words split at spaces; a first word
# @reset or @sleep is the host's event instead of a behaviour),
# STATES the columns it runs in, ALLOWED the outcome words it may show
# (comma separated), STALL_MS the watchdog for its cells.
matrix_row() {
	MATRIX_ROWS+=("$1|$2|$3|$4|${5:-$MATRIX_STALL_MS}")
}

# The kernel log from the marker of cell $1 on (the last 3000 lines hold a
# cell's whole log, rate limits included).
_matrix_kmsg_since() {
	dmesg | tail -n 3000 | kmsg_after_mark "isocam-matrix: $1"
}

# _matrix_plug TAG: attach; sets BOUND=1 and NODE/INTF/DBG, or BOUND=0 and
# PROBE_WHY (isocam's last error line, or "core" when isocam said nothing).
# Within 30 s: a bound node; or, once isocam has said why, 1 s more to
# finish its probe; or 5 s of a device nobody bound (or that vanished).
# The kernel log is read only while nothing is bound, once a second: under
# TCG a dmesg pipeline costs ten times its guest time in wall time.
_matrix_plug() {
	local tag=$1 start=$SECONDS why_at='' idle_at=$SECONDS scan_at=-1 err
	BOUND=0
	PROBE_WHY=
	# (usbip's own words: an attach that fails before the camera sees a
	# client is the test bed's, and the log must say why)
	if ! err=$(usbip_attach 1-1 2>&1); then
		PROBE_WHY="attach failed: ${err//$'\n'/; }"
		return 0
	fi
	while [ $((SECONDS - start)) -lt 30 ]; do
		if NODE=$(cam_node); then
			driver_debugfs
			BOUND=1
			return 0
		fi
		if cam_intf >/dev/null; then
			idle_at=$SECONDS
		else
			if [ "$scan_at" != "$SECONDS" ]; then
				scan_at=$SECONDS
				PROBE_WHY=$(_matrix_kmsg_since "$tag" | grep -E '\] isocam [0-9-]+:[0-9.]+: ' |
					grep -E "refus|cannot|did not|no |needs|fail" | tail -n 1 |
					sed 's/^\[[ 0-9.]*\] //') || true
				[ -z "$PROBE_WHY" ] || [ -n "$why_at" ] || why_at=$SECONDS
			fi
			if [ -n "$why_at" ] && [ $((SECONDS - why_at)) -ge 1 ]; then
				break
			elif [ $((SECONDS - idle_at)) -ge 5 ]; then
				break
			fi
		fi
		nap 0.2
	done
	[ -n "$PROBE_WHY" ] || PROBE_WHY=core
	_matrix_kmsg_since "$tag" >>"$CELL_LOG"
}

# _matrix_stream_word RESULT: isocam-stream's line as an outcome word,
# appended to OUT (a stall or an odd end also to CELL_BAD).
_matrix_stream_word() {
	local r=$1 end="" good="" err=""
	# (Bash's own regex, not sed: forks are dear in the guest.)
	[[ $r =~ .*end=([a-z]*) ]] && end=${BASH_REMATCH[1]}
	[[ $r =~ .*good=([0-9]*) ]] && good=${BASH_REMATCH[1]}
	[[ $r =~ .*error=([0-9]*) ]] && err=${BASH_REMATCH[1]}
	case "$end" in
	count)
		if [ "$err" = 0 ]; then OUT+=" good"
		elif [ "$good" = 0 ]; then OUT+=" errfr"
		else OUT+=" mixed"; fi ;;
	dqbuf | pollerr)
		case "$r" in
		*ENODEV*) OUT+=" gone" ;;
		*EIO*) OUT+=" eio" ;;
		*) OUT+=" dqbuf?"; CELL_BAD+="DQBUF failed oddly ($r); " ;;
		esac ;;
	streamon)
		case "$r" in *ENODEV*) OUT+=" gone" ;; *) OUT+=" son" ;; esac ;;
	stall) OUT+=" STALL"; CELL_BAD+="silent stall ($r); " ;;
	*) OUT+=" ?"; CELL_BAD+="isocam-stream: $r; " ;;
	esac
}

# _matrix_exercise: stream, control write, i2c read; appends outcome words
# to OUT.
_matrix_exercise() {
	local r
	# -r 1: a failed STREAMON is retried on the same handle and buffers
	r=$(timeout 40 "$MATRIX_STREAM" -n 15 -t 10000 -r 1 "$NODE" 2>&1) || true
	echo "stream: $r" >>"$CELL_LOG"
	_matrix_stream_word "$r"
	if [ -e "$NODE" ]; then
		timeout 20 v4l2-ctl -d "$NODE" -c brightness=$((RANDOM % 100)) >>"$CELL_LOG" 2>&1 ||
			OUT+=" cerr"
	fi
	if I2C=$(cam_i2c_node); then
		timeout 20 i2ctransfer -f -y "${I2C#/dev/i2c-}" w2@0x3c 0x00 0x00 r2 >>"$CELL_LOG" 2>&1 ||
			OUT+=" cerr"
	fi
}

# _matrix_arm: SIGUSR2 to the emulator, and wait for its "armed" line; or
# the host's event of the row ($MATRIX_EVENT), whose failure fails the
# cell.
_matrix_arm() {
	case "$MATRIX_EVENT" in
	'')
		kill -USR2 "$EMU_PID"
		wait_for "file_has '$CAMERA_EMU_LOG' 'hostile .* armed'" 10 "the emulator to arm"
		;;
	reset) camera_usbreset >>"$CELL_LOG" 2>&1 || CELL_BAD+="the USB reset failed; " ;;
	sleep) camera_usbsleep >>"$CELL_LOG" 2>&1 || CELL_BAD+="the sleep failed; " ;;
	esac
}

# _matrix_bg_loop ctrl|i2c: a background process writing controls or
# reading the sensor over i2c until one fails; BG its pid, each request
# done counted in $RESULTS/bg-count.
_matrix_bg_loop() {
	local count=$RESULTS/bg-count bus
	echo 0 >"$count"
	case "$1" in
	ctrl)
		(n=0; while v4l2-ctl -d "$NODE" -c contrast=$((RANDOM % 200)) 2>/dev/null; do
			n=$((n + 1)); echo "$n" >"$count"; done) &
		;;
	i2c)
		bus=$(cam_i2c_node) || fail "no /dev/i2c-N for the i2c column"
		(n=0; while i2ctransfer -f -y "${bus#/dev/i2c-}" w2@0x3c 0x00 0x00 r2 >/dev/null 2>&1; do
			n=$((n + 1)); echo "$n" >"$count"; done) &
		;;
	esac
	BG=$!
	camera_track "$BG"
}

# _matrix_bg_wait N SECS: until the background loop has done N requests
# in all, or ended, or SECS passed. (Not fixed sleeps: a loop of execs
# keeps the guest's CPU busy, and under icount a busy guest second takes
# ten seconds of wall time.)
_matrix_bg_wait() {
	local want=$1 deadline=$((SECONDS + $2)) n
	while kill -0 "$BG" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
		read -r n <"$RESULTS/bg-count" || n=0
		[ "${n:-0}" -lt "$want" ] || return 0
		nap 0.1
	done
}

# _matrix_cell NAME EMU_ARG STATE STALL_MS: one cell; sets OUT and CELL_BAD.
_matrix_cell() {
	local name=$1 arg=$2 state=$3 tag="$1/$3" t0 splat bg_stream='' n
	OUT=
	CELL_BAD=
	CELL_LOG=$RESULTS/cell-${name}-${state}.log
	: >"$CELL_LOG"
	echo "$4" >/sys/module/isocam/parameters/stall_ms ||
		fail "cannot set isocam's stall_ms to $4"
	kmsg_mark "isocam-matrix: $tag"
	MATRIX_EVENT=
	case "$arg" in @*)
		MATRIX_EVENT=${arg%% *}
		MATRIX_EVENT=${MATRIX_EVENT#@}
		arg=${arg#@"$MATRIX_EVENT"}
		;;
	esac
	# shellcheck disable=SC2086 # EMU_ARG is one or more words
	if [ "$state" = probe ] || [ -n "$MATRIX_EVENT" ]; then
		start_emu $arg
	else
		start_emu $arg --hostile-on=signal
	fi
	_matrix_plug "$tag"
	if [ "$BOUND" = 0 ]; then
		[ "$state" = probe ] || CELL_BAD+="the well-behaved plug failed: $PROBE_WHY; "
		if [ "$PROBE_WHY" = core ]; then OUT=" core"; else OUT=" refused"; fi
		echo "probe: $PROBE_WHY" >>"$CELL_LOG"
	else
		case "$state" in
		idle) _matrix_arm ;;
		stream)
			timeout 40 "$MATRIX_STREAM" -n 60 -t 10000 "$NODE" >"$RESULTS/bg-stream.txt" 2>&1 &
			bg_stream=$!
			sleep 1
			_matrix_arm
			;;
		ctrl | i2c)
			# Two requests done before the behaviour starts, two
			# more (or the first failure) after it.
			_matrix_bg_loop "$state"
			_matrix_bg_wait 2 10
			_matrix_arm
			read -r n <"$RESULTS/bg-count" || n=0
			_matrix_bg_wait $((n + 2)) 1
			kill "$BG" 2>/dev/null || true
			wait "$BG" 2>/dev/null || true
			;;
		esac
		if [ -n "$bg_stream" ]; then
			wait "$bg_stream" || true
			echo "armed mid-stream: $(cat "$RESULTS/bg-stream.txt")" >>"$CELL_LOG"
			_matrix_stream_word "$(cat "$RESULTS/bg-stream.txt")"
		fi
		# A lie that broke USB/IP's rules made vhci unplug the camera.
		if [ -e "$NODE" ]; then _matrix_exercise; else OUT+=" gone"; fi
	fi
	t0=$SECONDS
	if [ -n "$(_vhci_used_ports)" ]; then
		timeout 25 usbip detach -p 0 >/dev/null 2>&1 || CELL_BAD+="usbip detach failed or hung; "
	fi
	wait_for 'no_usb_camera && no_isocam_left && no_vhci_port_used' 25 "the unplug of $tag" ||
		CELL_BAD+="the unplug did not finish; "
	[ $((SECONDS - t0)) -le 20 ] || CELL_BAD+="the unplug took $((SECONDS - t0)) s; "
	stop_emu
	splat=$(_matrix_kmsg_since "$tag" | grep -m1 -F -f "$MATRIX_BAD_RE") || true
	[ -z "$splat" ] || CELL_BAD+="kernel: $splat; "
	OUT=${OUT# }
	OUT=${OUT// /+}
	[ -n "$OUT" ] || CELL_BAD+="no outcome at all; "
}

# _matrix_allowed OUT ALLOWED: every word of OUT is in ALLOWED (cerr is
# always allowed: an error from a lying device is the right answer).
_matrix_allowed() {
	local w
	for w in ${1//+/ }; do
		[ "$w" = cerr ] && continue
		[[ ",$2," == *",$w,"* ]] || return 1
	done
}

# _matrix_next_camera: rmmod is clean and a well-behaved camera streams.
_matrix_next_camera() {
	local r
	unload_isocam_modules || { echo "rmmod failed"; return 1; }
	load_isocam_modules
	start_emu
	plug
	r=$(timeout 40 "$MATRIX_STREAM" -n 5 -t 10000 "$NODE") || true
	unplug
	stop_emu
	[[ "$r" == *"good=5 "* ]] || { echo "next camera: $r"; return 1; }
}

# matrix_run [NAME...]: run the rows (all, or the NAMEd ones); print the
# table to $RESULTS/matrix.txt and stdout; fail if any cell failed.
matrix_run() {
	local row name arg states allowed stall st line why
	{
		printf '| %-18s | %-16s | %-16s | %-16s | %-16s | %-16s |\n' mode probe idle stream ctrl i2c
		printf '|%s|%s|%s|%s|%s|%s|\n' -------------------- ------------------ ------------------ ------------------ ------------------ ------------------
	} >"$RESULTS/matrix.txt"
	for row in "${MATRIX_ROWS[@]}"; do
		IFS='|' read -r name arg states allowed stall <<<"$row"
		if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
		step "matrix: $name ($arg)"
		line=$(printf '| %-18s ' "$name")
		for st in probe idle stream ctrl i2c; do
			if [[ ",$states," != *",$st,"* ]]; then
				line+=$(printf '| %-16s ' "n/a")
				continue
			fi
			_matrix_cell "$name" "$arg" "$st" "$stall"
			why=
			_matrix_allowed "$OUT" "$allowed" || why="outcome $OUT not in {$allowed}; "
			why+=$CELL_BAD
			if [ -n "$why" ]; then
				MATRIX_FAILS=$((MATRIX_FAILS + 1))
				log "FAIL $name/$st: $why"
				line+=$(printf '| %-16s ' "FAIL:$OUT")
			else
				log "ok $name/$st: $OUT"
				line+=$(printf '| %-16s ' "$OUT")
			fi
		done
		if ! why=$(_matrix_next_camera); then
			MATRIX_FAILS=$((MATRIX_FAILS + 1))
			log "FAIL $name: after it, $why"
			line+=" (next camera: FAIL)"
		fi
		echo "$line|" >>"$RESULTS/matrix.txt"
	done
	cat "$RESULTS/matrix.txt"
	[ "$MATRIX_FAILS" = 0 ] || fail "$MATRIX_FAILS fault matrix cells failed (see above and $RESULTS/cell-*.log)"
}

# matrix_main: a script's rows, on a fresh driver: MATRIX_ONLY's rows
# only when it is set (a group may then have none), then a clean rmmod.
matrix_main() {
	local r only=()
	require_cmd usbip v4l2-ctl i2ctransfer timeout
	[ -x "$MATRIX_STREAM" ] || fail "$MATRIX_STREAM is not built (make)"
	if [ -n "${MATRIX_ONLY:-}" ]; then
		for r in "${MATRIX_ROWS[@]}"; do
			[[ " $MATRIX_ONLY " != *" ${r%%|*} "* ]] || only+=("${r%%|*}")
		done
		if [ ${#only[@]} = 0 ]; then
			log "MATRIX_ONLY ($MATRIX_ONLY) names none of these rows: nothing to run"
			return 0
		fi
	fi
	modprobe i2c-dev
	driver_setup
	stop_emu
	matrix_run "${only[@]}"
	step "clean rmmod"
	unload_isocam_modules
	modprobe -r vhci-hcd
	log "$(basename "$0" .sh): ok"
}
