#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel-reports.sh KMSG NAME: the first line of the kernel log KMSG that
# tests/vm/harness/kernel-bad.re calls a report (timestamp stripped, at most 160
# characters) and that tests/vm/harness/kernel-known.txt does not list for the
# script NAME; nothing if there is none. With -k, the known reports that
# were skipped instead, one per line. Used by run-vm.sh (the verdict) and
# guest-run.sh (stop early), so both judge alike.
#
# kernel-reports.sh -l KMEMLEAK_LOG: the first leak in a copy of
# /sys/kernel/debug/kmemleak whose allocation backtrace touches isocam,
# ic1280, videobuf2, V4L2 or usbip, or a module unloaded since (a bare
# address: the harness unloads the project's modules before it scans),
# said in one line; nothing if there is none.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=bad
if [ "${1:-}" = -l ]; then
	[ -f "${2:-}" ] || exit 0
	awk '
	function judge() {
		if (obj != "" && ours != "") {
			printf "kmemleak: %s, allocated by %s\n", obj, ours
			found = 1
			exit
		}
	}
	/^unreferenced object/ { judge(); obj = $0; sub(/:$/, "", obj); ours = ""; bt = 0; next }
	/^ *backtrace/ { bt = 1; next }
	# A frame: "[<addr>] func+off/size" (6.1) or "func+off/size [mod]" (7.2).
	bt && /^ +[^ ]/ {
		f = ($1 ~ /^\[</) ? $2 : $1
		if (ours == "" && (f ~ /isocam|ic1280|vb2_|videobuf2|v4l2|video_|usbip|vhci|stub_/ ||
		    f ~ /^0x[0-9a-f]+$/))
			ours = f
	}
	END { if (!found) judge() }' "$2"
	exit 0
fi
if [ "${1:-}" = -k ]; then mode=known; shift; fi
kmsg=$1
name=$2

declare -a known=()
while IFS=$'\t' read -r script report _; do
	case "$script" in '' | '#'*) continue ;; esac
	[ "$script" = "$name" ] && known+=("$report")
done <"$HERE/kernel-known.txt"

grep -Ef "$HERE/kernel-bad.re" "$kmsg" 2>/dev/null | sed 's/^\[ *[0-9.]*\] //' |
	while IFS= read -r line; do
		is_known=0
		for k in "${known[@]}"; do
			case "$line" in "$k"*) is_known=1; break ;; esac
		done
		if [ "$mode" = known ]; then
			[ "$is_known" = 0 ] || echo "$line"
		elif [ "$is_known" = 0 ]; then
			echo "$line" | cut -c1-160
			break
		fi
	done
exit 0
