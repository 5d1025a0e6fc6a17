# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/lib/base.sh: helpers for guest scripts run by tests/vm/harness/run-vm.sh.
#   . "$ISOCAM_ROOT/tests/vm/lib/base.sh"
# Generic only; camera-specific helpers live in tests/vm/lib/camera.sh.
# Scripts run under bash with `set -eu -o pipefail` once this is sourced.
# So no `CMD | grep -q`: grep's early exit can kill CMD with SIGPIPE and
# fail the pipeline; `CMD | grep PAT >/dev/null` reads everything.
#
#   log MSG...                 timestamped line on stdout
#   is_mounted DIR             true if a file system is mounted on DIR
#   step MSG...                a visible "== MSG" heading
#   subtest NAME FUNC [ARG...] a step of its own (KTAP): FUNC runs in a
#                              subshell; "ok N NAME" or "not ok N NAME #
#                              why", and the script goes on to the next
#   subtests_done              the plan line "1..N"; fails the script if
#                              a subtest failed (run-vm.sh also fails a
#                              script that printed "not ok" and exited 0)
#   fail MSG...                message on stderr, exit 1 (of the subtest,
#                              inside one)
#   require_cmd CMD...         fail with a clear message when CMD is missing
#                              (never skip: a skipped test is a defect)
#   assert CMD...              run CMD; fail if it returns non-zero
#   assert_eq ACTUAL EXPECTED [WHAT]
#   assert_ne ACTUAL UNEXPECTED [WHAT]
#   assert_ge ACTUAL MIN [WHAT]     (integers)
#   assert_le ACTUAL MAX [WHAT]     (integers)
#   assert_match STRING ERE [WHAT]
#   assert_file PATH           PATH exists
#   file_has FILE ERE          a line of FILE matches ERE (bash's regex: for
#                              small files polled often, e.g. a fresh log)
#   assert_module_loaded NAME / assert_module_unloaded NAME
#   wait_for 'COND' TIMEOUT [WHAT]   poll the shell condition every 0.2 s
#   nap SECONDS                sleep without a fork or an exec (polling loops)
#   run_logged NAME CMD...     run CMD, tee its output to $RESULTS/NAME.log
#   load_isocam_modules        modprobe the installed ic1280, then isocam;
#                              parameters from $ic1280_PARAMS, $isocam_PARAMS
#   unload_isocam_modules      modprobe -r them, in reverse order
#   module_loaded NAME         true if NAME is loaded
#   kmsg_mark TEXT             write a marker line into the kernel log
#   kmsg_after_mark TEXT       filter: the kernel log (stdin) from the line
#                              kmsg_mark TEXT wrote on
#   holds_open PID PATH        true if process PID has PATH open
#   vivid_start                modprobe vivid (one instance); $VIVID is its
#                              capture node, once devtmpfs has it
#   udevd_start / udevd_stop   Debian's systemd-udevd as a daemon (module
#                              autoload, device properties), and its exit
#   run_compliance LOG WHAT ARGS...
#                              v4l2-compliance ARGS into LOG; its "Total for
#                              WHAT..." line must be there; sets status,
#                              summary, total, succeeded, failed, warnings

set -eu -o pipefail

: "${ISOCAM_ROOT:?run this under tests/vm/harness/run-vm.sh}"
: "${RESULTS:=/tmp/isocam-results}"
mkdir -p "$RESULTS"

# The project's modules in load order: the sensor first, then the bridge
# that instantiates it.
ISOCAM_MODULES="ic1280 isocam"

# Fork-free, as every helper that runs often: under TCG a fork and an
# exec cost up to 160 ms of guest time on the debug kernel (KASAN,
# kmemleak).
log() {
	local t=$EPOCHREALTIME us
	us=${t#*.}
	printf '%(%T)T.%s %s\n' "${t%.*}" "${us:0:3}" "$*"
}
step() { printf '== %s\n' "$*"; }

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	[ -z "${SUBTEST_WHY:-}" ] || printf '%s' "$*" >"$SUBTEST_WHY"
	exit 1
}

# KTAP subtests. A subtest sees the script's variables but cannot set
# them, nor wait for the script's background jobs: what later steps need
# is set up (and waited for) outside subtests, and a subtest that changes
# shared state (a debugfs knob, a running process) undoes it itself, with
# a trap of its own if need be.
SUBTEST_N=0
SUBTEST_FAILED=()
subtest() {
	local name=$1 rc why=
	shift
	[ "$SUBTEST_N" -gt 0 ] || printf 'KTAP version 1\n'
	SUBTEST_N=$((SUBTEST_N + 1))
	step "$name"
	: >"$RESULTS/.subtest-why"
	set +e
	(
		set -e
		SUBTEST_WHY=$RESULTS/.subtest-why
		"$@"
	)
	rc=$?
	set -e
	if [ "$rc" = 0 ]; then
		printf 'ok %d %s\n' "$SUBTEST_N" "$name"
		return 0
	fi
	read -r why <"$RESULTS/.subtest-why" || true
	printf 'not ok %d %s # %s\n' "$SUBTEST_N" "$name" \
		"${why:-exit status $rc}"
	SUBTEST_FAILED+=("$name")
}
subtests_done() {
	local IFS=';'
	printf '1..%d\n' "$SUBTEST_N"
	[ ${#SUBTEST_FAILED[@]} = 0 ] ||
		fail "${#SUBTEST_FAILED[@]} of $SUBTEST_N subtests failed: ${SUBTEST_FAILED[*]}"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			fail "required command '$c' is missing in the guest (make deps)"
	done
}

assert() {
	"$@" || fail "command failed (status $?): $*"
}

assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

assert_ne() {
	[ "$1" != "$2" ] || fail "${3:-value}: got '$1', expected anything else"
}

_is_int() { [[ "$1" =~ ^-?[0-9]+$ ]]; }

assert_ge() {
	_is_int "$1" || fail "${3:-value}: '$1' is not an integer"
	[ "$1" -ge "$2" ] || fail "${3:-value}: got $1, expected >= $2"
}

assert_le() {
	_is_int "$1" || fail "${3:-value}: '$1' is not an integer"
	[ "$1" -le "$2" ] || fail "${3:-value}: got $1, expected <= $2"
}

assert_match() {
	[[ "$1" =~ $2 ]] || fail "${3:-value}: '$1' does not match /$2/"
}

assert_file() {
	[ -e "$1" ] || fail "missing file: $1"
}

file_has() {
	# (a read of a log being written can fail now and then on the debug
	# kernel, ENODATA over 9p: that is "not yet", and the caller polls)
	local l=
	[ -r "$1" ] || return 1
	while IFS= read -r l 2>/dev/null || [ -n "$l" ]; do
		[[ $l =~ $2 ]] && return 0
	done <"$1"
	return 1
}

is_mounted() {
	local dir rest
	while read -r _ dir rest; do
		[ "$dir" = "$1" ] && return 0
	done </proc/self/mounts
	return 1
}

module_loaded() {
	[ -d "/sys/module/${1//-/_}" ] && [ -e "/sys/module/${1//-/_}/initstate" ]
}

assert_module_loaded() {
	module_loaded "$1" || fail "module $1 is not loaded"
}

assert_module_unloaded() {
	! module_loaded "$1" || fail "module $1 is still loaded"
}

# nap: read with a timeout from a FIFO that nobody writes (opened read-
# write, so neither the open nor the read sees an end). /bin/sleep in a
# polling loop costs a fork and an exec per round: 0.2 s of guest time
# each on the debug kernel, as much as the nap itself.
_nap_fifo=/tmp/isocam-nap.$$
mkfifo -m 600 "$_nap_fifo"
exec {_nap_fd}<>"$_nap_fifo"
rm -f "$_nap_fifo"
nap() {
	read -r -t "$1" -u "$_nap_fd" _ || true
}

# wait_for 'COND' TIMEOUT [WHAT]: COND is evaluated by the shell.
wait_for() {
	local cond=$1 timeout=${2:-10} what=${3:-$1}
	local deadline=$((SECONDS + timeout))
	until eval "$cond"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${timeout}s waiting for: $what"
		nap 0.2
	done
}

run_logged() {
	local name=$1
	shift
	"$@" 2>&1 | tee "$RESULTS/$name.log"
	return "${PIPESTATUS[0]}"
}

kmsg_mark() {
	echo "isocam-test: $*" >/dev/kmsg
}

# (awk, not sed: no regex from a tag; index() is 0 when absent, which the
# end-of-line arithmetic alone would take for a match on a shorter line.)
kmsg_after_mark() {
	awk -v m="isocam-test: $1" \
		'!f { i = index($0, m); if (i > 0 && i == length($0) - length(m) + 1) f = 1 } f'
}

load_isocam_modules() {
	local m rel
	read -r rel </proc/sys/kernel/osrelease
	for m in $ISOCAM_MODULES; do
		[ -f "/lib/modules/$rel/extra/$m.ko" ] ||
			fail "$m.ko is not installed in the guest (was 'make modules' run?)"
	done
	for m in $ISOCAM_MODULES; do
		if module_loaded "$m"; then
			continue
		fi
		# Module parameters for a given module: MODNAME_PARAMS="a=1 b=2".
		local pv="${m}_PARAMS"
		# shellcheck disable=SC2086
		modprobe "$m" ${!pv:-} || fail "modprobe $m failed"
		assert_module_loaded "$m"
	done
}

unload_isocam_modules() {
	local m rev=""
	for m in $ISOCAM_MODULES; do rev="$m $rev"; done
	for m in $rev; do
		if module_loaded "$m"; then
			modprobe -r "$m" || fail "modprobe -r $m failed"
		fi
		assert_module_unloaded "$m"
	done
}

holds_open() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}

run_compliance() {
	local log=$1 what=$2
	shift 2
	set +e
	v4l2-compliance "$@" >"$log" 2>&1
	status=$?
	set -e
	summary=$(grep -a -m1 "^Total for $what" "$log" || true)
	[ -n "$summary" ] || {
		tail -n 40 "$log" >&2
		fail "no 'Total for $what' summary from v4l2-compliance (status $status)"
	}
	echo "$summary"
	grep -aoE '(fail|warn): [^	]*' "$log" | head -n 20 || true
	# The caller reads them (and $status).
	# shellcheck disable=SC2034
	read -r total succeeded failed warnings <<<"$(sed -n \
		's/.*: \([0-9]*\), Succeeded: \([0-9]*\), Failed: \([0-9]*\), Warnings: \([0-9]*\).*/\1 \2 \3 \4/p' \
		<<<"$summary")"
}

udevd_start() {
	local udevd=/lib/systemd/systemd-udevd
	[ -x "$udevd" ] || fail "$udevd is missing in the guest (make deps)"
	mkdir -p /run/udev
	"$udevd" --daemon --resolve-names=never || fail "systemd-udevd did not start"
	wait_for 'udevadm control --ping' 20 "systemd-udevd to answer"
}

udevd_stop() {
	udevadm control --exit 2>/dev/null || return 0
	wait_for '! udevadm control --ping 2>/dev/null' 10 "systemd-udevd to exit"
}

# The vivid capture node: found by name in sysfs (no udev needed).
_vivid_node() {
	local d
	for d in /sys/class/video4linux/video*; do
		[ -e "$d/name" ] && [ "$(cat "$d/name")" = vivid-000-vid-cap ] &&
			{ echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}

vivid_start() {
	module_loaded vivid || modprobe vivid n_devs=1 || fail "modprobe vivid failed"
	assert_module_loaded vivid
	wait_for 'VIVID=$(_vivid_node)' 10 "vivid's capture node"
	wait_for "[ -c $VIVID ]" 10 "$VIVID to appear in devtmpfs"
}
