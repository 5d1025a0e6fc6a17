#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The in-guest half of tests/vm/harness/run-vm.sh: PID 1 after switch_root into
# the host's shared root (read-only 9p under a tmpfs overlay).
#
#   guest-run.sh ROOT OUT
#
# Sets up the bits of a system a test needs (proc, sys, devtmpfs, debugfs,
# configfs, loopback), installs the freshly built project modules into
# /lib/modules/$KVER/extra with the module maps depmod made for them on the
# host (no udev: nothing autoloads; modprobe resolves dependencies),
# then runs every script listed in OUT/plan.sh in order, each as root with
# bash, cwd = ROOT, its own timeout and its own results dir, and records
# for each: status, seconds, output.log (stdout+stderr, also echoed to the
# console prefixed with "[name] ") and kmsg.log (the kernel log lines the
# script produced). The host (run-vm.sh) judges the results; the guest
# only stops early when a script failed and --keep-going was not given.
# Finally it powers the VM off.

ROOT=$1
OUT=$2
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
cd / || exit 1

log() { echo "guest-run: [$(cut -d" " -f1 /proc/uptime)s] $*" >/dev/console; }

poweroff_now() {
	sync
	umount "$OUT" 2>/dev/null
	echo o >/proc/sysrq-trigger
	# The 9p root is going away with the devices: wait with a builtin.
	read -r -t 20 _ </dev/console 2>/dev/null
	# Not reached normally; panic=-1 plus -no-reboot ends QEMU anyway.
	exit 1
}

# shellcheck source=/dev/null
. "$OUT/plan.sh" || { log "cannot read $OUT/plan.sh"; poweroff_now; }
# plan.sh sets: KVER TIMEOUT KEEP_GOING MODDIR KCONFIG MODULES SCRIPTS=(...)

# --- the system ------------------------------------------------------------
mkdir -p /dev/pts /dev/shm
# devtmpfs lacks what udev adds; bash process substitution needs /dev/fd.
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mount -t devpts -o gid=5,mode=620 devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs /run 2>/dev/null
# The guest's own /tmp: through the overlay, the host's /tmp shows files a
# job beside the VM writes there (a compiler's temporaries), which the
# scripts must not see nor the harness remove. Not when the tree or the
# results live under /tmp: a tmpfs there would hide them.
case "$ROOT/:$OUT/" in
/tmp/* | *:/tmp/*) ;;
*) mount -t tmpfs -o mode=1777 tmpfs /tmp ;;
esac
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname isocam-vm
ip link set lo up || log "warning: cannot bring up lo"
# A task stuck in D state for a minute is a bug worth failing on.
echo 60 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
# Warnings and worse also reach the console (and so the host) as they happen,
# so a guest that dies still leaves its splat behind; dmesg is kept per script.
dmesg -n 5

# --- the project's modules ---------------------------------------------------
# run-vm.sh staged them in OUT/modroot/lib/modules/$KVER/extra and ran depmod
# there on the host (a guest depmod -a reads all ~4000 modules over 9p under
# TCG: half a minute); installing is a copy of extra/ and the modules.* maps.
mods=/lib/modules/$KVER
staged=$OUT/modroot/lib/modules/$KVER
if [ -f "$staged/modules.dep" ]; then
	mkdir -p "$mods/extra"
	# A kernel from outside /lib/modules (the debug kernel's cache)
	[ -e "$mods/kernel" ] || ln -s "$MODDIR/kernel" "$mods/kernel"
	cp "$staged"/extra/*.ko "$mods/extra/" 2>/dev/null
	for f in "$staged"/modules.*; do
		cp "$f" "$mods/"
	done
else
	log "warning: no staged modules; running depmod -a in the guest"
	depmod -a "$KVER" || log "warning: depmod failed"
fi
ls "$mods/extra" >"$OUT/installed-modules.txt" 2>&1
# isocam keeps 8 URBs in flight, sized for real hardware; USB/IP under TCG
# answers in bursts, so every load in the guest (modprobe, udev) gets 32.
mkdir -p /etc/modprobe.d
echo "options isocam num_urbs=$ISOCAM_VM_NUM_URBS" >/etc/modprobe.d/isocam-vm.conf

# --- the scripts -------------------------------------------------------------
dmesg -c >"$OUT/boot.kmsg" 2>&1
{ echo "=== boot"; cat "$OUT/boot.kmsg"; } >"$OUT/dmesg.log"

# Leftover processes, found in this shell itself (no pipelines: their own
# short-lived children would count). snapshot_procs remembers every PID;
# find_new_procs sets NEW to the user processes (kernel threads and zombies
# have an empty cmdline) that appeared since, PID 1 (this runner) aside.
# The project's module names, bridge before sensor (reverse load order).
modules_from_order() {
	local m names=()
	[ -f "$MODULES/modules.order" ] || return 0
	while read -r m; do
		m=${m##*/}
		m=${m%.o}
		m=${m%.ko}
		names=("${m//-/_}" "${names[@]}")
	done <"$MODULES/modules.order"
	echo "${names[@]}"
}

declare -A BEFORE=()
NEW=()
snapshot_procs() {
	local p
	BEFORE=()
	for p in /proc/[0-9]*; do BEFORE[${p#/proc/}]=1; done
}
find_new_procs() {
	local p c
	NEW=()
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		if [ -n "${BEFORE[$p]:-}" ] || [ "$p" = 1 ]; then continue; fi
		c=
		{ IFS= read -r -d '' c <"/proc/$p/cmdline"; } 2>/dev/null
		[ -z "$c" ] || NEW+=("$p")
	done
}

# What a script leaves in /tmp (the guest's own tmpfs, mounted above: half
# its memory) is gone before the next one starts: on the debug kernel a
# failed 82-user-tweak left 400 MB of capture there, and the three
# scripts after it failed for want of space.
declare -A TMP_BEFORE=()
snapshot_tmp() {
	local f
	TMP_BEFORE=()
	for f in /tmp/* /tmp/.[!.]*; do TMP_BEFORE[$f]=1; done
}
clean_tmp() { # clean_tmp NAME
	local f left=()
	for f in /tmp/* /tmp/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		[ -n "${TMP_BEFORE[$f]:-}" ] || left+=("$f")
	done
	[ ${#left[@]} -gt 0 ] || return 0
	log "$1 left in /tmp, removing: $(du -csh "${left[@]}" 2>/dev/null | tail -n 1 | cut -f 1) in ${left[*]}"
	rm -rf "${left[@]}"
}

export ISOCAM_ROOT=$ROOT ISOCAM_BUILD=$ROOT/build ISOCAM_KVER=$KVER ISOCAM_VM=1
export ISOCAM_KCONFIG=$KCONFIG

# kmemleak (the debug kernel): after each script, once its processes are
# gone and the project's modules unloaded, scan and keep what is new in
# DIR/kmemleak.log; run-vm.sh judges it. A new object is reported only
# by the second scan that finds it unreferenced (the first one only notes
# its checksum), and only once it is 5 s old: hence two scans, the second
# at least 6 s after the script ended. "clear" then forgets them all, so
# each script is charged only for its own leaks.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_scan() { # kmemleak_scan LOG ENDED_AT(EPOCHREALTIME)
	local t0=$EPOCHREALTIME wait
	[ -w "$KMEMLEAK" ] || return 0
	echo scan >"$KMEMLEAK" 2>/dev/null || { echo "kmemleak: scan failed" >"$1"; return 0; }
	wait=$(awk -v e="$2" -v n="$EPOCHREALTIME" 'BEGIN { w = e + 6 - n; print (w > 0 ? w : 0) }')
	sleep "$wait"
	echo scan >"$KMEMLEAK" 2>/dev/null
	cat "$KMEMLEAK" >"$1" 2>&1
	echo clear >"$KMEMLEAK" 2>/dev/null
	log "kmemleak: two scans in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')s, $(grep -c '^unreferenced object' "$1") object(s) unreferenced"
}
# What the boot itself left unreferenced is not any script's.
[ ! -w "$KMEMLEAK" ] || { echo scan >"$KMEMLEAK"; cat "$KMEMLEAK" >"$OUT/boot-kmemleak.log"; echo clear >"$KMEMLEAK"; } 2>/dev/null

for script in "${SCRIPTS[@]}"; do
	name=$(basename "$script" .sh)
	dir=$OUT/$name
	mkdir -p "$dir/results"
	log "=== RUN $name"
	snapshot_procs
	snapshot_tmp
	# Its mtime is the host's clock: run-vm.sh's wall time for the script.
	: >"$dir/started"
	start=$EPOCHREALTIME
	(
		cd "$ROOT" || exit 1
		export RESULTS=$dir/results
		# run-vm.sh's script_timeout(): a script's own longer limit
		limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\)$/\1/p' "$script" | head -n 1)
		[ -n "$limit" ] && [ "$limit" -gt "$TIMEOUT" ] || limit=$TIMEOUT
		exec timeout -k 10 "$limit" bash "$script"
	) >"$dir/output.log" 2>&1 </dev/null &
	pid=$!
	tail -n +1 -s 0.2 --pid="$pid" -f "$dir/output.log" 2>/dev/null |
		sed -u "s/^/[$name] /" >/dev/console &
	echo_pid=$!
	wait "$pid"
	status=$?
	end=$EPOCHREALTIME
	wait "$echo_pid"
	# Scripts do not leak into each other: end every user process that was
	# not there before this one started (daemons it left, e.g. an emulator
	# or usbipd holding a port), TERM first, then KILL.
	find_new_procs
	if [ ${#NEW[@]} -gt 0 ]; then
		what=
		for p in "${NEW[@]}"; do
			c=
			{ IFS= read -r -d '' c <"/proc/$p/cmdline"; } 2>/dev/null
			what="$what $p:${c##*/}"
		done
		log "$name left processes running, terminating them:$what"
		kill -TERM "${NEW[@]}" 2>/dev/null
		for _ in $(seq 20); do
			find_new_procs
			[ ${#NEW[@]} -gt 0 ] || break
			sleep 0.25
		done
		[ ${#NEW[@]} -eq 0 ] || kill -KILL "${NEW[@]}" 2>/dev/null
	fi
	# ... and leave the project's modules unloaded for the next script. The
	# splats of an unload are charged to this script; a module still in use
	# now that its processes are gone is a leaked reference: a failure.
	for m in $(modules_from_order); do
		[ -e "/sys/module/$m/initstate" ] || continue
		if ! err=$(rmmod "$m" 2>&1); then
			echo "rmmod $m after the script failed: $err (refcnt $(cat "/sys/module/$m/refcnt" 2>/dev/null))" >>"$dir/harness-error"
			log "$name: cannot unload $m: $err"
		fi
	done
	clean_tmp "$name"
	kmemleak_scan "$dir/kmemleak.log" "$end"
	dmesg -c >"$dir/kmsg.log" 2>&1
	{ echo "=== $name"; cat "$dir/kmsg.log"; } >>"$OUT/dmesg.log"
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	echo "$secs" >"$dir/seconds"
	echo "$status" >"$dir/status"
	log "=== END $name status=$status (${secs}s)"
	if [ "$KEEP_GOING" != 1 ]; then
		if [ "$status" != 0 ] || [ -f "$dir/harness-error" ] ||
			[ -n "$("$ROOT/tests/vm/harness/kernel-reports.sh" "$dir/kmsg.log" "$name")" ] ||
			[ -n "$("$ROOT/tests/vm/harness/kernel-reports.sh" -l "$dir/kmemleak.log")" ]; then
			log "stopping after $name failed (no --keep-going)"
			break
		fi
	fi
done

dmesg -c >"$OUT/shutdown.kmsg" 2>&1
{ echo "=== shutdown"; cat "$OUT/shutdown.kmsg"; } >>"$OUT/dmesg.log"
echo "done" >"$OUT/guest-done"
log "all done, powering off"
poweroff_now
