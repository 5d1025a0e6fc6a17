#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/install.sh install|uninstall|dkms: what `make install`, `make
# uninstall` and `make install-dkms` do (the Makefile builds first).
#   install    the modules into /lib/modules/$KVER/updates/isocam/, then
#              depmod; isocam-emu and isocam-check into $PREFIX/bin; their
#              man pages and isocam(4); isocam-emu.service into
#              $PREFIX/lib/systemd/system/ and its options file into
#              $SYSCONFDIR/default/isocam-emu (kept if it exists)
#   uninstall  removes what install put there, then depmod
#   dkms       the module sources and dkms.conf into
#              /usr/src/isocam-<version>/, then `dkms add` (unless DESTDIR)
# Environment: ROOT (the tree), KVER, DESTDIR (staging root: no depmod, no
# dkms add), PREFIX (default /usr/local), SYSCONFDIR (default /etc).
# Prints "install: PATH" or "uninstall: PATH" for each file, PATH without
# DESTDIR.
set -euo pipefail

: "${ROOT:?}" "${KVER:?}"
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
SYSCONFDIR=${SYSCONFDIR:-/etc}
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$ROOT/dkms.conf")
[ -n "$VERSION" ] || { echo "install: no PACKAGE_VERSION in $ROOT/dkms.conf" >&2; exit 1; }

MODDIR=/lib/modules/$KVER/updates/isocam
BINDIR=$PREFIX/bin
MANDIR=$PREFIX/share/man
UNITDIR=$PREFIX/lib/systemd/system

# put MODE SRC DEST: install one file, say so.
put() {
	install -D -m "$1" "$2" "$DESTDIR$3"
	echo "install: $3"
}

# the files install writes: "MODE SRC DEST" a line
manifest() {
	echo "644 $ROOT/usb/isocam.ko $MODDIR/isocam.ko"
	echo "644 $ROOT/i2c-sensor/ic1280.ko $MODDIR/ic1280.ko"
	echo "755 $ROOT/build/isocam-emu $BINDIR/isocam-emu"
	echo "755 $ROOT/build/isocam-check $BINDIR/isocam-check"
	echo "644 $ROOT/man/isocam-emu.1 $MANDIR/man1/isocam-emu.1"
	echo "644 $ROOT/man/isocam-check.1 $MANDIR/man1/isocam-check.1"
	echo "644 $ROOT/man/isocam.4 $MANDIR/man4/isocam.4"
}

run_depmod() {
	if [ -z "$DESTDIR" ]; then
		depmod -a "$KVER"
		echo "install: depmod -a $KVER"
	fi
}

case "${1:-}" in
install)
	while read -r mode src dest; do
		[ -f "$src" ] || { echo "install: $src is not built" >&2; exit 1; }
		put "$mode" "$src" "$dest"
	done <<<"$(manifest)"
	unit=$(mktemp)
	trap 'rm -f "$unit"' EXIT
	sed -e "s|@BINDIR@|$BINDIR|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" \
		"$ROOT/dist/isocam-emu.service.in" >"$unit"
	put 644 "$unit" "$UNITDIR/isocam-emu.service"
	if [ -e "$DESTDIR$SYSCONFDIR/default/isocam-emu" ]; then
		echo "install: $SYSCONFDIR/default/isocam-emu exists: kept"
	else
		put 644 "$ROOT/dist/isocam-emu.default" "$SYSCONFDIR/default/isocam-emu"
	fi
	run_depmod
	;;
uninstall)
	while read -r _ _ dest; do
		[ -e "$DESTDIR$dest" ] || continue
		rm -f "$DESTDIR$dest"
		echo "uninstall: $dest"
	done <<<"$(manifest; echo "- - $UNITDIR/isocam-emu.service"; echo "- - $SYSCONFDIR/default/isocam-emu")"
	rmdir "$DESTDIR$MODDIR" 2>/dev/null || true
	run_depmod
	;;
dkms)
	src=/usr/src/isocam-$VERSION
	cd "$ROOT"
	for f in dkms.conf Kbuild usb/Kbuild usb/*.[ch] i2c-sensor/Kbuild \
		i2c-sensor/*.c core/*.[ch] compat/*.h include/isocam/*.h; do
		case "$f" in *.mod.c) continue ;; esac
		put 644 "$f" "$src/$f"
	done
	if [ -z "$DESTDIR" ]; then
		dkms add -m isocam -v "$VERSION"
		echo "install: dkms add isocam/$VERSION (now: dkms install isocam/$VERSION)"
	fi
	;;
*)
	echo "usage: $0 install|uninstall|dkms" >&2
	exit 2
	;;
esac
