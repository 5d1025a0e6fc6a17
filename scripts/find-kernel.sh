#!/bin/sh
# Print the newest kernel version V for which this machine has both a
# bootable image (/boot/vmlinuz-V) and a module build tree
# (/lib/modules/V/build): the pair the modules are built for and the VM
# suite boots. Exit 1 with a message when there is none.
set -eu
best=""
for img in /boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	v=${img#/boot/vmlinuz-}
	[ -f "/lib/modules/$v/build/Makefile" ] || continue
	[ -d "/lib/modules/$v/kernel" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
done
if [ -z "$best" ]; then
	echo "find-kernel: no kernel with both /boot/vmlinuz-V and /lib/modules/V/build; run 'make deps'" >&2
	exit 1
fi
echo "$best"
