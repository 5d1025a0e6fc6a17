#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run-shards.sh: tests/vm/harness/run-vm.sh's scripts split across several
# single-vCPU VMs at once, one more than the host has cores.
#
# Usage: tests/vm/harness/run-shards.sh [--shards N] --out DIR [run-vm.sh options] SCRIPT...
#   --shards N   how many VMs (default $ISOCAM_VM_SHARDS, else the host's
#                cores plus one); 1 is run-vm.sh itself
#   --out DIR    results dir (required); every other option goes to each
#                run-vm.sh as it is
#
# Under --clock icount a guest's timeline counts its own instructions, so
# VMs beside each other give the verdicts each gives alone. One QEMU
# under TCG runs its guest on one host thread, but a guest waits on its
# camera's frame clock and its 9p root: two VMs on two cores kept the
# host about half busy, three about 70% (make check 13.8 minutes).
#
# Balance: each script weighs its last measured seconds (build/vm/
# script-times-KVER.txt, written by every whole run here on that kernel;
# else tests/vm/harness/script-times.txt, measured on Debian's 6.1; else 30):
# the host seconds it took when known, since those are what a shard
# waits for (a busy guest second costs two to three, an idle one one),
# else its guest seconds; plus the harness's cleanup after it. The
# heaviest goes first to the lightest shard (longest processing time
# first). Within a shard the scripts keep their order. A script's name is
# all it shares with others: each shard is one boot with its own
# overlay, network and modules.
#
# DIR gets shard-K/ (each run-vm.sh's whole output), shard-K.log (its
# host-side messages), and, merged in the order the scripts were given:
# summary.txt (run-vm.sh's lines, one per script), known-reports.txt,
# DIR/NAME -> shard-K/NAME, and slowest.txt: the five slowest scripts
# with their guest and wall seconds. The exit status is run-vm.sh's: 0 all
# passed, 1 something failed, 2 a shard could not start.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
VMDIR=$ROOT/tests/vm/harness
die() { echo "run-shards: $*" >&2; exit 2; }

SHARDS=${ISOCAM_VM_SHARDS:-$(($(nproc) + 1))}
OUT=
KERNEL_ENV=
OPTS=()
SCRIPTS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--shards) SHARDS=${2:?}; shift 2 ;;
	--shards=*) SHARDS=${1#*=}; shift ;;
	--out) OUT=${2:?}; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--kernel-env) KERNEL_ENV=${2:?}; OPTS+=("$1" "$2"); shift 2 ;;
	--kernel-env=*) KERNEL_ENV=${1#*=}; OPTS+=("$1"); shift ;;
	--timeout | --clock | --mem | --smp) OPTS+=("$1" "${2:?}"); shift 2 ;;
	-h | --help) sed -n '3,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
	--) shift; SCRIPTS+=("$@"); break ;;
	-*) OPTS+=("$1"); shift ;;
	*) SCRIPTS+=("$1"); shift ;;
	esac
done
[ -n "$OUT" ] || die "--out DIR is required"
[ ${#SCRIPTS[@]} -gt 0 ] || die "no scripts"
case "$SHARDS" in '' | *[!0-9]* | 0) die "--shards takes a positive number" ;; esac
[ "$SHARDS" -le ${#SCRIPTS[@]} ] || SHARDS=${#SCRIPTS[@]}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(realpath "$OUT")
if [ "$SHARDS" = 1 ]; then
	exec "$VMDIR/run-vm.sh" "${OPTS[@]}" --out "$OUT" "${SCRIPTS[@]}"
fi

# The kernel the shards boot: its own table of script times.
if [ -n "$KERNEL_ENV" ]; then
	# shellcheck source=/dev/null
	KVER=$(. "$KERNEL_ENV" && echo "$KVER")
else
	KVER=$("$ROOT/scripts/find-kernel.sh") || die "no kernel found (make deps)"
fi
TIMES=$ROOT/build/vm/script-times-$KVER.txt
declare -A WEIGHT=()
for f in "$VMDIR/script-times.txt" "$TIMES"; do
	[ -f "$f" ] || continue
	while read -r n g w _; do
		case "$n" in '' | '#'*) continue ;; esac
		case "$w" in '' | *[!0-9]*) w=${g%.*} ;; esac
		WEIGHT[$n]=$w
	done <"$f"
done

# Longest processing time first. A script's weight is its seconds plus
# 10: what the harness spends after it (ending its processes, unloading
# modules; on the debug kernel also two kmemleak scans).
declare -a NAMES=() LOAD=()
for s in "${SCRIPTS[@]}"; do
	[ -f "$s" ] || die "no such script: $s"
	NAMES+=("$(basename "$s" .sh)")
done
for ((k = 0; k < SHARDS; k++)); do LOAD[k]=0; done
declare -A SHARD_OF=()
while read -r w i; do
	best=0
	for ((k = 1; k < SHARDS; k++)); do
		[ "${LOAD[k]}" -ge "${LOAD[best]}" ] || best=$k
	done
	LOAD[best]=$((LOAD[best] + w))
	SHARD_OF[$i]=$best
done < <(for i in "${!SCRIPTS[@]}"; do
	echo "$((${WEIGHT[${NAMES[i]}]:-30} + 10)) $i"
done | sort -k1,1nr -k2,2n)

# Each shard: one run-vm.sh with its scripts in their given order.
declare -a PIDS=()
for ((k = 0; k < SHARDS; k++)); do
	list=()
	for i in "${!SCRIPTS[@]}"; do
		[ "${SHARD_OF[$i]}" != "$k" ] || list+=("${SCRIPTS[i]}")
	done
	rm -rf "${OUT:?}/shard-$k"
	echo "run-shards: shard $k: ${#list[@]} script(s), about ${LOAD[k]} s" >&2
	"$VMDIR/run-vm.sh" "${OPTS[@]}" -q --out "$OUT/shard-$k" "${list[@]}" \
		>"$OUT/shard-$k.log" 2>&1 </dev/null &
	PIDS[k]=$!
done
# Progress: each script's end, as its guest reports it.
# (fd 3: the shell's own "Terminated" when they are ended goes nowhere.)
exec 3>&2
progress() {
	local k=$1
	tail -n +1 -F "$OUT/shard-$k/console.log" 2>/dev/null |
		sed -un "s/^guest-run: \[[0-9.]*s\] === END \(.*\)/run-shards: [shard $k] \1/p" >&3
}
declare -a TAILS=()
for ((k = 0; k < SHARDS; k++)); do
	progress "$k" 2>/dev/null &
	TAILS[k]=$!
done
status=0
for ((k = 0; k < SHARDS; k++)); do
	wait "${PIDS[k]}"
	st=$?
	[ "$st" -le "$status" ] || status=$st
done
# The tails follow files that no longer grow: end them and their pipes.
for t in "${TAILS[@]}"; do pkill -P "$t" 2>/dev/null; kill "$t" 2>/dev/null; done
wait 2>/dev/null

# ---------------------------------------------------------------- merge
: >"$OUT/summary.txt.new"
: >"$OUT/known-reports.txt"
for ((k = 0; k < SHARDS; k++)); do
	sed -n 's/^run-vm: .*wall, results in .*/shard '"$k"': &/p' "$OUT/shard-$k.log" >&2
	[ -f "$OUT/shard-$k/summary.txt" ] || {
		echo "run-shards: shard $k left no summary:" >&2
		tail -n 20 "$OUT/shard-$k.log" >&2
	}
	grep -E '^FAIL \((boot|shutdown)\)' "$OUT/shard-$k/summary.txt" 2>/dev/null |
		sed "s/^FAIL (\([a-z]*\))/FAIL (\1 of shard $k)/" >>"$OUT/summary.txt.new"
	cat "$OUT/shard-$k/known-reports.txt" 2>/dev/null >>"$OUT/known-reports.txt"
done
: >"$OUT/times.txt"
for i in "${!SCRIPTS[@]}"; do
	n=${NAMES[i]}
	k=${SHARD_OF[$i]}
	line=$(grep -E "^(PASS|FAIL|SKIP) $n( |$)" "$OUT/shard-$k/summary.txt" 2>/dev/null | head -n 1)
	[ -n "$line" ] || line="FAIL $n (no result from shard $k; see $OUT/shard-$k.log)"
	echo "$line" >>"$OUT/summary.txt.new"
	ln -sfn "shard-$k/$n" "$OUT/$n"
	if [ -f "$OUT/$n/seconds" ]; then
		printf '%s %s %s %s\n' "$n" "$(cat "$OUT/$n/seconds")" \
			"$(cat "$OUT/$n/wall" 2>/dev/null || echo '?')" "$k" >>"$OUT/times.txt"
	fi
done
mv "$OUT/summary.txt.new" "$OUT/summary.txt"
cat "$OUT/summary.txt"
[ ! -s "$OUT/known-reports.txt" ] || {
	echo "run-shards: known reports, not counted (tests/vm/harness/kernel-known.txt):" >&2
	sed 's/^/run-shards:   /' "$OUT/known-reports.txt" >&2
}
sort -k2,2gr "$OUT/times.txt" | head -n 5 |
	awk '{ printf "%-28s guest %6.1fs  wall %5ss  (shard %s)\n", $1, $2, $3, $4 }' >"$OUT/slowest.txt"
echo "run-shards: the five slowest scripts:" >&2
sed 's/^/run-shards:   /' "$OUT/slowest.txt" >&2

# A whole run (every row, every pair) is the weight of the next one.
if [ -z "${MATRIX_ONLY:-}" ] && [ -z "${HANDLE_PAIRS:-}" ] && [ -z "${HANDLE_SUBSETS:-}" ] &&
	[ -s "$OUT/times.txt" ]; then
	mkdir -p "$(dirname "$TIMES")"
	{
		[ ! -f "$TIMES" ] || awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$OUT/times.txt" "$TIMES"
		awk '{ print $1, $2, $3 }' "$OUT/times.txt"
	} | sort >"$TIMES.$$" && mv "$TIMES.$$" "$TIMES"
fi
exit "$status"
