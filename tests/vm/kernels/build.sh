#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build a kernel the harness boots that Debian does not ship as a binary
# for Debian 12, once, and cache it.
#
#   tests/vm/kernels/build.sh NAME          prints the cache dir on stdout
#   tests/vm/kernels/build.sh --dir NAME    prints it only if already built
#
# NAME:
#   7.2     the newest kernel Debian ships (sid's linux-source-7.2, whose
#           binary image needs sid's gcc and glibc), configured for the
#           guest: `make check KERNEL=7.2`
#   debug   the same source with every checker (debug.config) and the
#           fixes in patches/: `make check-debug`
# Config: make defconfig, then kernel/configs/kvm_guest.config,
# suite.config and (debug) debug.config merged over it, then
# olddefconfig. The result lives in
#   ${ISOCAM_CACHE:-/var/cache/isocam}/kernel-NAME-<key>/
# where <key> hashes the source package's version, the fragments, the
# patches and LAYOUT below, so an unchanged tree never rebuilds:
#   bzImage         the kernel the harness boots
#   lib/modules/V/  its modules (run-vm.sh's MODDIR)
#   src/            the configured, built tree: KDIR for out-of-tree modules
#   env             KVER= IMAGE= MODDIR= KDIR= KCONFIG= for the caller
#   build.log, build-seconds
# Nothing goes under /boot or /lib/modules: what scripts/find-kernel.sh
# finds of Debian's kernels stays as it was.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${ISOCAM_CACHE:-/var/cache/isocam}
SERIES=7.2
PKG=linux-source-$SERIES
TARBALL=${ISOCAM_KERNEL_SOURCE:-/usr/src/$PKG.tar.xz}

# Bump when the cache's layout or the build recipe changes.
LAYOUT=2

die() { echo "kernels: $*" >&2; exit 1; }

only_dir=
if [ "${1:-}" = --dir ]; then
	only_dir=1
	shift
fi
NAME=${1:-}
case "$NAME" in
7.2) fragments=("$HERE/suite.config"); patches=(); localversion=-isocam ;;
debug)
	fragments=("$HERE/suite.config" "$HERE/debug.config")
	patches=("$HERE"/patches/*.patch)
	localversion=-isocam-dbg ;;
*) die "usage: build.sh [--dir] 7.2|debug" ;;
esac

[ -r "$TARBALL" ] || die "no $TARBALL (make deps installs $PKG)"
srcver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || stat -c %s-%Y "$TARBALL")
key=$({
	echo "$NAME $srcver layout $LAYOUT $localversion"
	cat "${fragments[@]}"
	for p in "${patches[@]}"; do cat "$p"; done
} | sha256sum | cut -c1-16)
DIR=$CACHE/kernel-$NAME-$key

if [ -f "$DIR/env" ]; then
	[ -n "$only_dir" ] || echo "kernels: $NAME cached in $DIR" >&2
	echo "$DIR"
	exit 0
fi
[ -z "$only_dir" ] || exit 1

for t in flex bison bc; do
	command -v "$t" >/dev/null || die "$t missing (make deps)"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing (make deps)"

mkdir -p "$CACHE" || die "cannot create $CACHE (run as root or set ISOCAM_CACHE)"
# Two builds of the same key never race: the second waits, then finds it.
exec 9>"$CACHE/.lock-$NAME-$key"
flock 9
if [ -f "$DIR/env" ]; then
	echo "$DIR"
	exit 0
fi

rm -rf "$DIR"
mkdir -p "$DIR"
log=$DIR/build.log
start=$(date +%s)
echo "kernels: building $NAME in $DIR (about 20 minutes on 2 cores; log $log)" >&2
(
	set -x
	tar -xJf "$TARBALL" -C "$DIR"
	mv "$DIR/$PKG" "$DIR/src"
	cd "$DIR/src"
	for p in "${patches[@]}"; do
		patch -p1 --forward <"$p"
	done
	make defconfig
	scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config \
		"${fragments[@]}"
	scripts/config --set-str LOCALVERSION "$localversion"
	make olddefconfig
) >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed; see $log"; }

# merge_config.sh drops what Kconfig refuses: check that every checker and
# every built-in the guest boots with made it into the final .config.
missing=
while IFS= read -r line; do
	case "$line" in CONFIG_*=y | CONFIG_*=m) ;; *) continue ;; esac
	grep -qx "$line" "$DIR/src/.config" || missing="$missing ${line%=*}"
done < <(cat "${fragments[@]}")
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
printf 'KVER=%s\nIMAGE=%s\nMODDIR=%s\nKDIR=%s\nKCONFIG=%s\n' "$kver" \
	"$DIR/bzImage" "$DIR/lib/modules/$kver" "$DIR/src" "$DIR/src/.config" \
	>"$DIR/env.tmp"
mv "$DIR/env.tmp" "$DIR/env"
echo "kernels: built $NAME ($kver) in $(cat "$DIR/build-seconds")s" >&2
echo "$DIR"
