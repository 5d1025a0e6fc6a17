#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-vm.sh: boot Debian's kernel in QEMU and run guest test scripts in it.
#
# Usage: tests/vm/harness/run-vm.sh [options] SCRIPT...
#   --timeout SECS  time limit per guest script (default 300; a script
#                   with a "# vm-timeout: SECS" line may ask for more)
#   --kvm           use KVM instead of TCG (hangs at boot on the dev machines)
#   --mem MB        guest memory (default 2048)
#   --clock MODE    the guest's clock under TCG (default: $ISOCAM_VM_CLOCK,
#                   else icount):
#                   icount  guest time counts executed instructions
#                           (-icount shift=0,sleep=on, one vCPU): host
#                           load slows the run but cannot make the guest's
#                           camera late for the guest's own consumer
#                   host    multi-threaded TCG on the host's clock (the
#                           old mode): faster when the host is idle, but
#                           host load makes guest processes late
#   --smp N         guest CPUs (default 2 with --clock host; icount has 1)
#                   (the CPU model under TCG: $ISOCAM_VM_CPU, default
#                   max,-erms,-fsrm; see docs/testing.md, "The guest's clock")
#   --out DIR       results dir (default build/vm/<timestamp>-<pid>)
#   --kernel-env F  boot another kernel than $KERNEL's (scripts/
#                   find-kernel.sh; default 6.1, Debian 12's): F sets KVER, IMAGE
#                   (the bzImage), MODDIR (its lib/modules/KVER), KCONFIG
#                   (its .config), MODULES (the tree whose modules.order
#                   lists the project modules built for it) and CMDLINE
#                   (added to the kernel command line), and may set
#                   GUEST_MEM (MB, the default for --mem); written by
#                   scripts/check-debug.sh for the debug kernel
#   --keep-going    run every script even after one failed
#   -q, --quiet     do not echo the guest console (it is still saved)
#   -h, --help      this text
#
# All SCRIPTs run in ONE boot, in order. The guest sees the host's whole
# root read-only (9p) under a writable tmpfs overlay, so every host tool and
# path (this tree, its build/) is there at the same place. Inside the guest,
# tests/vm/harness/guest-run.sh installs the project's built modules (modules.order)
# into /lib/modules/$KVER/extra with module maps from a host-side depmod (so
# `modprobe isocam` resolves videodev, videobuf2, ...; there is no udev,
# nothing autoloads), brings up lo (usbip runs over 127.0.0.1), and runs
# each SCRIPT as root with bash, cwd = project root, and this environment:
#   ISOCAM_ROOT   project root          ISOCAM_BUILD  $ISOCAM_ROOT/build
#   ISOCAM_KVER   the booted kernel     ISOCAM_VM     1
#   RESULTS       a writable dir; its files land in OUT/<name>/results/
#   MATRIX_ONLY   passed on from run-vm.sh's own environment when set: the
#                 fault matrix's rows to run (62-driver-fault-*.sh)
#   HANDLE_PAIRS  passed on likewise: the handle pairs to run
#                 (61-driver-unplug-handles.sh)
#   HANDLE_SUBSETS, HANDLE_SEED  passed on likewise: all runs every subset
#                 of handle kinds there, closed in orders from the seed
#   ISOCAM_DEMO_GADGET  passed on likewise: 1 makes the demo's guest half
#                 plug the camera as a gadget (`make demo GADGET=1`)
# and every load of isocam in the guest gets num_urbs=$ISOCAM_VM_NUM_URBS
# (default 32, from /etc/modprobe.d): the driver's default of 8 is sized
# for real hardware, and USB/IP under TCG answers in bursts.
# Scripts usually start with: . "$ISOCAM_ROOT/tests/vm/lib/base.sh"
#
# A script FAILS when it exits non-zero, prints a KTAP "not ok" line (a
# failed subtest: lib/base.sh's subtest; the summary names them), times out,
# never ran to the end (guest hang or crash), or when the kernel log
# written during it matches tests/vm/harness/kernel-bad.re (WARNING:, BUG:, Oops,
# refcount_t:, list corruption, hung task, lockdep, KASAN/UBSAN, general
# protection fault, ...), whatever its own exit status. One line per script:
#   PASS <name> (<secs>s)
#   FAIL <name> (<reason>)
#   SKIP <name> (...)      not run because an earlier one failed
# After each script the harness ends the processes it left running and
# unloads the project's modules (modules.order) so the next one starts
# clean; a module that will not unload then (a leaked reference) FAILs the
# script, and so does any splat during that unload.
# Exit status: 0 if all passed, 1 if any failed, 2 on usage/setup errors.
#
# OUT holds: console.log (the whole serial console), dmesg.log (the whole
# kernel log, in sections), summary.txt (the PASS/FAIL lines), and per
# script <name>/{output.log,kmsg.log,status,seconds,wall,results/}
# (seconds: the guest's clock; wall: the host's, from its start to its end).
#
# The kernel is scripts/find-kernel.sh's (or $KVER): /boot/vmlinuz-$KVER.
# The initramfs (busybox-static + the virtio/9p/overlay modules in
# modules.dep order) is cached in build/vm/ and rebuilt when its inputs
# change. A guest that hangs is killed by an overall host-side timeout
# (boot allowance + per-script timeouts).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
VMDIR=$ROOT/tests/vm/harness

usage() { sed -n '3,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
die() { echo "run-vm: $*" >&2; exit 2; }

TIMEOUT=300
ACCEL=tcg
CLOCK=${ISOCAM_VM_CLOCK:-icount}
MEM=2048
MEM_SET=
SMP=
OUT=
KERNEL_ENV=
KEEP_GOING=0
QUIET=0
SCRIPTS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--kvm) ACCEL=kvm; shift ;;
	--clock) CLOCK=${2:?}; shift 2 ;;
	--clock=*) CLOCK=${1#*=}; shift ;;
	--mem) MEM=${2:?}; MEM_SET=1; shift 2 ;;
	--mem=*) MEM=${1#*=}; MEM_SET=1; shift ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--smp=*) SMP=${1#*=}; shift ;;
	--out) OUT=${2:?}; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--kernel-env) KERNEL_ENV=${2:?}; shift 2 ;;
	--kernel-env=*) KERNEL_ENV=${1#*=}; shift ;;
	--keep-going|-k) KEEP_GOING=1; shift ;;
	-q|--quiet) QUIET=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; SCRIPTS+=("$@"); break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) SCRIPTS+=("$1"); shift ;;
	esac
done
[ ${#SCRIPTS[@]} -gt 0 ] || { usage >&2; exit 2; }
case "$TIMEOUT$MEM$SMP" in *[!0-9]*) die "--timeout, --mem and --smp take numbers" ;; esac
case "$CLOCK" in
icount)
	# icount needs single-threaded TCG; -smp 2 with thread=single did not
	# finish booting in 6 minutes beside a host load.
	[ -z "$SMP" ] || [ "$SMP" = 1 ] || die "--clock icount runs one vCPU (use --clock host for --smp $SMP)"
	SMP=1 ;;
host) SMP=${SMP:-2} ;;
*) die "--clock takes icount or host" ;;
esac

IMAGE='' MODDIR='' KDIR='' KCONFIG='' MODULES='' CMDLINE='' GUEST_MEM=''
if [ -n "$KERNEL_ENV" ]; then
	[ -r "$KERNEL_ENV" ] || die "cannot read $KERNEL_ENV"
	# shellcheck source=/dev/null
	. "$KERNEL_ENV"
	[ -n "${KVER:-}" ] && [ -n "$IMAGE" ] && [ -n "$MODDIR" ] ||
		die "$KERNEL_ENV must set KVER, IMAGE and MODDIR"
	case "$GUEST_MEM" in *[!0-9]*) die "$KERNEL_ENV: GUEST_MEM takes a number" ;; esac
	[ -n "$MEM_SET" ] || MEM=${GUEST_MEM:-$MEM}
fi
if [ -z "$KERNEL_ENV" ]; then
	# The series make's KERNEL= names (default 6.1, Debian 12's own).
	kenv=$("$ROOT/scripts/find-kernel.sh" --env) || die "no kernel found (make deps; make kernel KERNEL=...)"
	eval "$kenv"
fi
KERNEL=${IMAGE:-/boot/vmlinuz-$KVER}
MODDIR=${MODDIR:-/lib/modules/$KVER}
KCONFIG=${KCONFIG:-/boot/config-$KVER}
MODULES=${MODULES:-$ROOT}
[ -r "$KERNEL" ] || die "cannot read $KERNEL"
[ -f "$MODDIR/modules.dep" ] || die "no $MODDIR/modules.dep"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (make deps)"
BUSYBOX=$(command -v busybox) || die "busybox missing (make deps)"

# Scripts: absolute paths (the guest sees the host's tree at the same place).
# A script may need longer than --timeout: a "# vm-timeout: SECS" line in
# it raises its own limit (never lowers it). guest-run.sh reads the same.
script_timeout() {
	local t
	t=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	if [ -n "$t" ] && [ "$t" -gt "$2" ]; then echo "$t"; else echo "$2"; fi
}

declare -a ABS=() NAMES=()
for s in "${SCRIPTS[@]}"; do
	[ -f "$s" ] || die "no such script: $s"
	a=$(realpath "$s")
	case "$a" in *[[:space:]]*) die "script path with spaces: $a" ;; esac
	n=$(basename "$a" .sh)
	for prev in "${NAMES[@]}"; do
		[ "$prev" != "$n" ] || die "two scripts named $n"
	done
	ABS+=("$a")
	NAMES+=("$n")
done

# ---------------------------------------------------------------- initramfs
# The modules /init needs, in load order: each one's dependencies first,
# as modules.dep says (its entries are paths relative to $MODDIR).
WANT="virtio_pci 9pnet_virtio 9p overlay"
declare -A DEP=() SEEN=()
ORDER=()
while IFS= read -r line; do
	m=${line%%:*}
	m=${m##*/}
	DEP[${m%%.ko*}]=$line
done <"$MODDIR/modules.dep"
visit() {
	local name=$1 line d
	[ -z "${SEEN[$name]:-}" ] || return 0
	SEEN[$name]=1
	line=${DEP[$name]:-}
	if [ -z "$line" ]; then
		# Built in? Then there is nothing to load.
		grep -q "/$name.ko" "$MODDIR/modules.builtin" 2>/dev/null && return 0
		die "module $name not in $MODDIR/modules.dep"
	fi
	for d in ${line#*:}; do
		d=${d##*/}
		visit "${d%%.ko*}"
	done
	ORDER+=("${line%%:*}")
}
for m in $WANT; do visit "$m"; done

INITRD=$ROOT/build/vm/initramfs-$KVER.cpio.gz
mkdir -p "$ROOT/build/vm"
inputs_id=$({
	echo "$KVER ${ORDER[*]}"
	sha256sum "$BUSYBOX" "$VMDIR/initramfs/init" "${BASH_SOURCE[0]}"
	for m in "${ORDER[@]}"; do stat -c '%n %s %Y' "$MODDIR/$m"; done
} | sha256sum | cut -c1-16)
if [ ! -f "$INITRD" ] || [ "$(cat "$INITRD.id" 2>/dev/null)" != "$inputs_id" ]; then
	echo "run-vm: building $INITRD" >&2
	stage=$(mktemp -d "$ROOT/build/vm/initramfs.XXXXXX")
	mkdir -p "$stage/bin" "$stage/modules"
	: >"$stage/modules/modules.list"
	cp "$BUSYBOX" "$stage/bin/busybox"
	install -m 0755 "$VMDIR/initramfs/init" "$stage/init"
	for m in "${ORDER[@]}"; do
		ko=$(basename "${m%%.ko*}").ko
		case "$m" in
		*.ko.xz) xz -dc "$MODDIR/$m" >"$stage/modules/$ko" ;;
		*.ko.zst) zstd -qdc "$MODDIR/$m" >"$stage/modules/$ko" ;;
		*.ko.gz) gzip -dc "$MODDIR/$m" >"$stage/modules/$ko" ;;
		*) cp "$MODDIR/$m" "$stage/modules/$ko" ;;
		esac || die "cannot unpack $m"
		echo "$ko" >>"$stage/modules/modules.list"
	done
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$stage.cpio.gz" ||
		die "cannot build the initramfs"
	# Rename into place: concurrent runs never see a half-written file.
	mv "$stage.cpio.gz" "$INITRD"
	echo "$inputs_id" >"$INITRD.id.tmp.$$" && mv "$INITRD.id.tmp.$$" "$INITRD.id"
	rm -rf "$stage"
fi

# The v4l2-compliance of the kernel's generation: Debian 12's 1.22 for
# kernels before 6.8, whose subdev API it knows (1.32 warns there that
# the kernel has no client capabilities); for 6.8 on, a current one
# (sid's, unpacked by tests/vm/harness/v4l-utils.sh, which make deps runs):
# 1.22 reports false failures on 6.12 and 7.2.
V4L_UTILS=
kmaj=${KVER%%.*} kmin=${KVER#*.}
kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 8 ]; }; then
	V4L_UTILS=$("$ROOT/tests/vm/harness/v4l-utils.sh" --dir 2>/dev/null) ||
		echo "run-vm: warning: no current v4l2-compliance unpacked (make deps); the guest uses Debian 12's 1.22" >&2
fi

# ---------------------------------------------------------------- the run
[ -n "$OUT" ] || OUT=$ROOT/build/vm/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(realpath "$OUT")
case "$OUT" in *[[:space:]]*) die "--out path with spaces: $OUT" ;; esac
rm -f "$OUT/guest-done" "$OUT/summary.txt"
for n in "${NAMES[@]}"; do rm -rf "${OUT:?}/$n"; done
{
	printf 'KVER=%q\nTIMEOUT=%q\nKEEP_GOING=%q\n' "$KVER" "$TIMEOUT" "$KEEP_GOING"
	printf 'MODDIR=%q\nKCONFIG=%q\nMODULES=%q\n' "$MODDIR" "$KCONFIG" "$MODULES"
	[ -z "${MATRIX_ONLY:-}" ] || printf 'export MATRIX_ONLY=%q\n' "$MATRIX_ONLY"
	[ -z "${HANDLE_PAIRS:-}" ] || printf 'export HANDLE_PAIRS=%q\n' "$HANDLE_PAIRS"
	[ -z "${HANDLE_SUBSETS:-}" ] || printf 'export HANDLE_SUBSETS=%q\n' "$HANDLE_SUBSETS"
	[ -z "${HANDLE_SEED:-}" ] || printf 'export HANDLE_SEED=%q\n' "$HANDLE_SEED"
	[ -z "${ISOCAM_DEMO_GADGET:-}" ] || printf 'export ISOCAM_DEMO_GADGET=%q\n' "$ISOCAM_DEMO_GADGET"
	printf 'export ISOCAM_VM_NUM_URBS=%q\n' "${ISOCAM_VM_NUM_URBS:-32}"
	# v4l2-compliance matching newer kernels' API, on every kernel alike.
	[ -z "$V4L_UTILS" ] || printf 'export PATH=%q:$PATH\n' "$V4L_UTILS/bin"
	printf 'SCRIPTS=('
	printf ' %q' "${ABS[@]}"
	printf ' )\n'
} >"$OUT/plan.sh"

# The project's modules (modules.order) staged as an extra/ dir beside a
# symlink to the real kernel/ tree, and depmod run here, natively: the guest
# only copies the result (depmod over 9p under TCG takes half a minute).
modroot=$OUT/modroot/lib/modules/$KVER
rm -rf "$OUT/modroot"
mkdir -p "$modroot/extra"
ln -s "$MODDIR/kernel" "$modroot/kernel"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ ! -f "$MODDIR/$f" ] || cp "$MODDIR/$f" "$modroot/"
done
if [ -f "$MODULES/modules.order" ]; then
	while read -r m; do
		m=${m%.o}
		m=${m%.ko}.ko
		case "$m" in /*) ;; *) m=$MODULES/$m ;; esac
		if [ -f "$m" ]; then
			cp "$m" "$modroot/extra/"
		else
			echo "run-vm: warning: $m is in modules.order but not built" >&2
		fi
	done <"$MODULES/modules.order"
else
	echo "run-vm: warning: no $MODULES/modules.order: project modules not built (make modules)" >&2
fi
# The suite's test-only instruments (tests/vm/kmods/), built here against
# the booted kernel's tree and staged beside the project's modules, so a
# script can modprobe them. One build a kernel: shards wait on its lock.
if [ -n "${KDIR:-}" ] && [ -f "$KDIR/Makefile" ]; then
	kmods=$ROOT/build/vm/kmods-$KVER
	mkdir -p "$kmods"
	(
		flock 9
		cp -u "$ROOT/tests/vm/kmods/Kbuild" "$ROOT"/tests/vm/kmods/*.c "$kmods/"
		make -s -C "$KDIR" M="$kmods" modules >"$kmods/build.log" 2>&1
	) 9>"$kmods.lock" || { tail -n 20 "$kmods/build.log" >&2; die "cannot build tests/vm/kmods against $KDIR"; }
	cp "$kmods"/*.ko "$modroot/extra/"
fi
depmod -b "$OUT/modroot" "$KVER" || die "depmod failed"

# Boot allowance plus every script's limit, plus module cleanup slack.
# The limits are guest seconds, enforced in the guest; this one is host
# seconds, the guard against a guest that hangs. Under icount a guest
# second takes 2-3 host seconds when the host is idle and up to 8 beside
# a CPU hog, but scripts use a fraction of their limits: three times the
# sum covers it.
TOTAL=180
for a in "${ABS[@]}"; do
	TOTAL=$((TOTAL + $(script_timeout "$a" "$TIMEOUT") + 15))
done
[ "$CLOCK" != icount ] || [ "$ACCEL" = kvm ] || TOTAL=$((TOTAL * 3))

# Without ERMS/FSRM: with them, large copies are "rep movsb", which TCG
# runs a byte per loop and icount counts a byte per instruction
# (see docs/testing.md, "The guest's clock").
CPU=${ISOCAM_VM_CPU:-max,-erms,-fsrm}
if [ "$ACCEL" = kvm ]; then
	ACCEL_ARGS=(-accel kvm -cpu host)
elif [ "$CLOCK" = icount ]; then
	# One guest nanosecond per instruction; an idle guest sleeps in host
	# time. See docs/testing.md, "The guest's clock".
	ACCEL_ARGS=(-accel tcg -icount "shift=0,sleep=on" -cpu "$CPU")
else
	ACCEL_ARGS=(-accel "tcg,thread=multi" -cpu "$CPU")
fi

echo "run-vm: kernel $KVER, ${#ABS[@]} script(s), clock $CLOCK, $SMP vCPU, out $OUT" >&2
echo "$CLOCK" >"$OUT/clock"
boot_start=$(date +%s)
timeout -k 10 "$TOTAL" qemu-system-x86_64 \
	"${ACCEL_ARGS[@]}" -m "$MEM" -smp "$SMP" \
	-nographic -no-reboot -nic none \
	-kernel "$KERNEL" -initrd "$INITRD" \
	-append "console=ttyS0 quiet panic=-1 ${CMDLINE:+$CMDLINE }isocam_root=$ROOT isocam_out=$OUT" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$OUT,mount_tag=results,security_model=none,multidevs=remap" \
	</dev/null 2>&1 | sed -u 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g' | tee "$OUT/console.log" |
	if [ "$QUIET" = 1 ]; then cat >/dev/null; else cat; fi
qemu_status=${PIPESTATUS[0]}
wall=$(($(date +%s) - boot_start))
rm -rf "$OUT/modroot"

# ---------------------------------------------------------------- verdict
BAD_RE=$VMDIR/kernel-bad.re
# The first report in a kernel log that kernel-known.txt does not excuse
# for this script; the excused ones are listed in OUT/known-reports.txt.
first_bad() { # first_bad KMSG NAME
	"$VMDIR/kernel-reports.sh" -k "$1" "$2" | sed "s/^/$2: /" >>"$OUT/known-reports.txt"
	"$VMDIR/kernel-reports.sh" "$1" "$2"
}
: >"$OUT/known-reports.txt"

failed=0
stopped=0
summary=()
if [ -f "$OUT/boot.kmsg" ] && bad=$(first_bad "$OUT/boot.kmsg" boot) && [ -n "$bad" ]; then
	summary+=("FAIL (boot) (kernel: $bad)")
	failed=1
fi
for n in "${NAMES[@]}"; do
	d=$OUT/$n
	if [ ! -f "$d/status" ]; then
		if [ "$stopped" = 1 ]; then
			summary+=("SKIP $n (not run: the guest stopped earlier)")
		elif [ -f "$OUT/guest-done" ]; then
			summary+=("SKIP $n (not run: an earlier script failed; see --keep-going)")
		else
			why="no result: guest died or hung"
			[ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ] &&
				why="no result: guest killed after ${TOTAL}s overall timeout"
			bad=$(grep -m1 -Ef "$BAD_RE" "$OUT/console.log" | cut -c1-160)
			[ -z "$bad" ] || why="$why; console: $bad"
			summary+=("FAIL $n ($why)")
		fi
		failed=1
		stopped=1
		continue
	fi
	st=$(cat "$d/status")
	secs=$(cat "$d/seconds" 2>/dev/null || echo "?")
	# Host seconds from its start to its status (both files' mtimes are
	# the host's clock): what the guest's seconds cost here.
	[ ! -f "$d/started" ] ||
		awk -v a="$(stat -c %.3Y "$d/started")" -v b="$(stat -c %.3Y "$d/status")" \
			'BEGIN { printf "%.0f\n", b - a }' >"$d/wall"
	bad=$(first_bad "$d/kmsg.log" "$n")
	leak=$("$VMDIR/kernel-reports.sh" -l "$d/kmemleak.log")
	# its failed KTAP subtests (lib/base.sh's subtest), each with its reason
	notok=$(sed -n 's/^not ok [0-9][0-9]* //p' "$d/output.log" 2>/dev/null |
		head -n 5 | cut -c1-120 | paste -sd';' -)
	if [ -n "$bad" ]; then
		summary+=("FAIL $n (kernel: $bad)")
	elif [ -n "$leak" ]; then
		summary+=("FAIL $n ($leak)")
	elif [ "$st" = 124 ] || [ "$st" = 137 ]; then
		summary+=("FAIL $n (timed out: --timeout ${TIMEOUT}s or its own vm-timeout)")
	elif [ -n "$notok" ]; then
		summary+=("FAIL $n (exit status $st after ${secs}s; not ok: $notok)")
	elif [ "$st" != 0 ]; then
		# lib/base.sh's fail() says why; else the script's last words.
		last=$(grep '^FAIL: ' "$d/output.log" 2>/dev/null | tail -n 1 | cut -c1-160)
		[ -n "$last" ] ||
			last=$(grep -v '^[[:space:]]*$' "$d/output.log" 2>/dev/null | tail -n 1 | cut -c1-120)
		summary+=("FAIL $n (exit status $st after ${secs}s${last:+; last output: $last})")
	elif [ -f "$d/harness-error" ]; then
		summary+=("FAIL $n ($(head -n 1 "$d/harness-error" | cut -c1-160))")
	else
		summary+=("PASS $n (${secs}s)")
		continue
	fi
	failed=1
done
if [ -f "$OUT/shutdown.kmsg" ] && bad=$(first_bad "$OUT/shutdown.kmsg" shutdown) && [ -n "$bad" ]; then
	summary+=("FAIL (shutdown) (kernel: $bad)")
	failed=1
fi

printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
if [ -s "$OUT/known-reports.txt" ]; then
	echo "run-vm: known reports, not counted (tests/vm/harness/kernel-known.txt):" >&2
	sed 's/^/run-vm:   /' "$OUT/known-reports.txt" >&2
fi
echo "run-vm: ${wall}s wall, results in $OUT" >&2
exit "$failed"
