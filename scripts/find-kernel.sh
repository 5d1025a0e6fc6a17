#!/bin/sh
# The kernel a target builds for and boots, by series (make's KERNEL=):
#
#   scripts/find-kernel.sh [--kdir|--env] [SERIES]
#
# prints its release (KVER), with --kdir its module build tree, with
# --env the lines KVER= IMAGE= MODDIR= KDIR= KCONFIG= that run-vm.sh's
# --kernel-env reads. SERIES (default: $KERNEL, else 6.1):
#   6.1    Debian 12's own kernel (linux-image-amd64): the default, the
#          kernel a fresh Debian 12 machine runs
#   6.12   bookworm-backports' (Debian 13's series), installed by make deps
#   7.2    built here from sid's linux-source-7.2 (tests/vm/kernels/
#          build.sh 7.2; `make kernel KERNEL=7.2` builds it)
#   debug  the debug kernel of make check-debug (7.2 with the checkers)
# For a Debian series: the newest V with both /boot/vmlinuz-V and
# /lib/modules/V/build. Installing another series never changes what a
# series finds. Exit 1 with a message when there is none.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
what='kver'
case "${1:-}" in
--kdir) what=kdir; shift ;;
--env) what='env'; shift ;;
esac
series=${1:-${KERNEL:-6.1}}

case "$series" in
6.1 | 6.12)
	best=""
	for img in /boot/vmlinuz-"$series".*; do
		[ -e "$img" ] || continue
		v=${img#/boot/vmlinuz-}
		[ -f "/lib/modules/$v/build/Makefile" ] || continue
		[ -d "/lib/modules/$v/kernel" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	if [ -z "$best" ]; then
		echo "find-kernel: no $series kernel with both /boot/vmlinuz-V and /lib/modules/V/build; run 'make deps'" >&2
		exit 1
	fi
	KVER=$best
	IMAGE=/boot/vmlinuz-$best
	MODDIR=/lib/modules/$best
	KDIR=/lib/modules/$best/build
	KCONFIG=/boot/config-$best
	;;
7.2 | debug)
	if ! dir=$("$HERE/../tests/vm/kernels/build.sh" --dir "$series"); then
		echo "find-kernel: the $series kernel is not built yet; run 'make kernel KERNEL=$series'" >&2
		exit 1
	fi
	. "$dir/env"
	;;
*)
	echo "find-kernel: no kernel series '$series' (supported: 6.1, 6.12, 7.2, debug)" >&2
	exit 1
	;;
esac

case $what in
kver) echo "$KVER" ;;
kdir) echo "$KDIR" ;;
env) printf 'KVER=%s\nIMAGE=%s\nMODDIR=%s\nKDIR=%s\nKCONFIG=%s\n' \
	"$KVER" "$IMAGE" "$MODDIR" "$KDIR" "$KCONFIG" ;;
esac
