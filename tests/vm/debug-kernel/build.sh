#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the debug kernel of `make check-debug` once, and cache it.
#
#   tests/vm/debug-kernel/build.sh      prints the cache dir on stdout
#
# Source: Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz).
# Config: make defconfig, then kernel/configs/kvm_guest.config and
# debug.config merged over it, then olddefconfig; every patches/*.patch
# is applied first. The result lives in
#   ${ISOCAM_CACHE:-/var/cache/isocam}/debug-kernel-<key>/
# where <key> hashes the source package's version, debug.config, the
# patches and LAYOUT below, so an unchanged tree never rebuilds:
#   bzImage         the kernel the harness boots
#   lib/modules/V/  its modules (run-vm.sh's --moddir)
#   src/            the configured, built tree: KDIR for out-of-tree modules
#   env             KVER= IMAGE= MODDIR= KDIR= for the caller
#   build.log, build-seconds
# Nothing goes under /boot or /lib/modules: `make check` keeps booting
# Debian's kernel (scripts/find-kernel.sh never sees this one).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TARBALL=${ISOCAM_KERNEL_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
CACHE=${ISOCAM_CACHE:-/var/cache/isocam}

# Bump when the cache's layout or the build recipe changes.
LAYOUT=1

die() { echo "debug-kernel: $*" >&2; exit 1; }

[ -r "$TARBALL" ] || die "no $TARBALL (make deps installs linux-source-6.1)"
for t in flex bison bc; do
	command -v "$t" >/dev/null || die "$t missing (make deps)"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing (make deps)"

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %s-%Y "$TARBALL")
key=$({
	echo "$srcver layout $LAYOUT"
	cat "$HERE/debug.config"
	for p in "$HERE"/patches/*.patch; do [ ! -f "$p" ] || cat "$p"; done
} | sha256sum | cut -c1-16)
DIR=$CACHE/debug-kernel-$key

if [ -f "$DIR/env" ]; then
	echo "debug-kernel: cached in $DIR" >&2
	echo "$DIR"
	exit 0
fi

mkdir -p "$CACHE" || die "cannot create $CACHE (run as root or set ISOCAM_CACHE)"
# Two builds of the same key never race: the second waits, then finds it.
exec 9>"$CACHE/.lock-$key"
flock 9
if [ -f "$DIR/env" ]; then
	echo "$DIR"
	exit 0
fi

rm -rf "$DIR"
mkdir -p "$DIR"
log=$DIR/build.log
start=$(date +%s)
echo "debug-kernel: building $DIR (about 17 minutes on 2 cores; log $log)" >&2
(
	set -x
	tar -xJf "$TARBALL" -C "$DIR"
	mv "$DIR/linux-source-6.1" "$DIR/src"
	cd "$DIR/src"
	for p in "$HERE"/patches/*.patch; do
		[ ! -f "$p" ] || patch -p1 --forward <"$p"
	done
	make defconfig
	scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config \
		"$HERE/debug.config"
	make olddefconfig
) >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed; see $log"; }

# merge_config.sh drops what Kconfig refuses: check that every checker and
# every built-in the guest boots with made it into the final .config.
missing=
while IFS= read -r line; do
	case "$line" in CONFIG_*=y) ;; *) continue ;; esac
	grep -qx "$line" "$DIR/src/.config" || missing="$missing ${line%=y}"
done <"$HERE/debug.config"
[ -z "$missing" ] || die "not in the final .config:$missing"

(
	cd "$DIR/src"
	make -j"$(nproc)" bzImage modules
	make modules_install INSTALL_MOD_PATH="$DIR" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod
) >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "the build failed; see $log"; }

kver=$(make -s -C "$DIR/src" kernelrelease)
cp "$DIR/src/arch/x86/boot/bzImage" "$DIR/bzImage"
rm -f "$DIR/lib/modules/$kver/build" "$DIR/lib/modules/$kver/source"
# Out-of-tree modules need the configured tree and its symbols, not the
# objects: drop those (most of the space).
find "$DIR/src" -name '*.o' -not -path '*/scripts/*' -not -path '*/tools/*' -delete
find "$DIR/src" \( -name '*.ko' -o -name '.*.o.cmd' \) -delete
rm -f "$DIR/src/vmlinux.o"
echo $(($(date +%s) - start)) >"$DIR/build-seconds"
printf 'KVER=%s\nIMAGE=%s\nMODDIR=%s\nKDIR=%s\n' "$kver" "$DIR/bzImage" \
	"$DIR/lib/modules/$kver" "$DIR/src" >"$DIR/env.tmp"
mv "$DIR/env.tmp" "$DIR/env"
echo "debug-kernel: built $kver in $(cat "$DIR/build-seconds")s" >&2
echo "$DIR"
