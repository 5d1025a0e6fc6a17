#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/install/install.sh: make install, make uninstall and DKMS, on the
# host (run by make check; no VM needed).
#  1. make install DESTDIR=... puts exactly the files it lists, and those
#     are the files this test expects: the two modules under
#     /lib/modules/$KVER/updates/isocam/, the tools, three man pages, the
#     systemd unit (pointing at the installed isocam-emu) and its options
#     file; the modules are the tree's, built for $KVER.
#  2. make uninstall DESTDIR=... removes every one of them.
#  3. make install-dkms DESTDIR=... stages the module sources with
#     dkms.conf; `dkms add` and `dkms build` from there, in a private DKMS
#     tree, build isocam.ko and ic1280.ko for $KVER's installed headers.
# Prints "install: ok" and exits 0, or says what is wrong and exits 1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KVER=${KVER:-$("$ROOT/scripts/find-kernel.sh")}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "install: FAIL: $*" >&2; exit 1; }

step() { printf '== %s\n' "$*"; }

step "make install DESTDIR=$T/root PREFIX=/usr/local"
make -s -C "$ROOT" install DESTDIR="$T/root" PREFIX=/usr/local KVER="$KVER" \
	>"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
cat "$T/install.log"
sed -n 's/^install: \(\/.*\)$/\1/p' "$T/install.log" | sort >"$T/said"
(cd "$T/root" && find . -type f | sed 's/^\.//' | sort) >"$T/found"
sort >"$T/expected" <<EOF
/lib/modules/$KVER/updates/isocam/isocam.ko
/lib/modules/$KVER/updates/isocam/ic1280.ko
/usr/local/bin/isocam-emu
/usr/local/bin/isocam-check
/usr/local/share/man/man1/isocam-emu.1
/usr/local/share/man/man1/isocam-check.1
/usr/local/share/man/man4/isocam.4
/usr/local/lib/systemd/system/isocam-emu.service
/etc/default/isocam-emu
EOF
diff -u "$T/said" "$T/found" || fail "make install wrote other files than it listed"
diff -u "$T/expected" "$T/found" || fail "make install did not install what it should"
for m in isocam ic1280; do
	v=$(modinfo -F vermagic "$T/root/lib/modules/$KVER/updates/isocam/$m.ko" | awk '{ print $1 }')
	[ "$v" = "$KVER" ] || fail "$m.ko is built for '$v', not $KVER"
done
cmp -s "$ROOT/usb/isocam.ko" "$T/root/lib/modules/$KVER/updates/isocam/isocam.ko" ||
	fail "the installed isocam.ko is not the tree's"
grep -qx 'ExecStart=/usr/local/bin/isocam-emu $ISOCAM_EMU_OPTS' \
	"$T/root/usr/local/lib/systemd/system/isocam-emu.service" ||
	fail "isocam-emu.service does not run the installed isocam-emu"
grep -qx 'EnvironmentFile=-/etc/default/isocam-emu' \
	"$T/root/usr/local/lib/systemd/system/isocam-emu.service" ||
	fail "isocam-emu.service does not read /etc/default/isocam-emu"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no \
		"$T/root/usr/local/lib/systemd/system/isocam-emu.service" 2>&1 |
		grep -v 'isocam-emu: No such file\|Command .* is not executable' |
		grep . && fail "systemd-analyze verify complains about the unit"
fi
for p in isocam-emu.1 isocam-check.1; do
	man -l --warnings "$T/root/usr/local/share/man/man1/$p" 2>&1 >/dev/null | grep . &&
		fail "man page $p has warnings"
done
man -l --warnings "$T/root/usr/local/share/man/man4/isocam.4" 2>&1 >/dev/null | grep . &&
	fail "man page isocam.4 has warnings"
# Into a file first: under pipefail, `--help | grep -q` fails whenever grep
# exits before the emulator's second 4 KiB write (SIGPIPE, status 141).
"$T/root/usr/local/bin/isocam-emu" --help >"$T/help" ||
	fail "the installed isocam-emu --help exits with status $?"
grep -q -- '--free-run' "$T/help" ||
	fail "the installed isocam-emu --help does not list --free-run"
echo "install: $(wc -l <"$T/found") files, as listed"

step "make install again keeps a changed /etc/default/isocam-emu"
echo 'ISOCAM_EMU_OPTS="--count=2"' >"$T/root/etc/default/isocam-emu"
make -s -C "$ROOT" install DESTDIR="$T/root" KVER="$KVER" >"$T/install2.log" 2>&1 ||
	{ cat "$T/install2.log"; fail "make install (again)"; }
grep -q -- '--count=2' "$T/root/etc/default/isocam-emu" ||
	fail "make install overwrote the options file"

step "make uninstall DESTDIR=$T/root"
make -s -C "$ROOT" uninstall DESTDIR="$T/root" KVER="$KVER" >"$T/uninstall.log" 2>&1 ||
	{ cat "$T/uninstall.log"; fail "make uninstall"; }
left=$(cd "$T/root" && find . -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
[ "$(grep -c '^uninstall: /' "$T/uninstall.log")" = "$(wc -l <"$T/expected")" ] ||
	fail "make uninstall did not list every file it removed: $(cat "$T/uninstall.log")"

step "DKMS: make install-dkms, dkms add and build for $KVER and Debian's 6.1 and 6.12"
command -v dkms >/dev/null || fail "dkms is not installed (make deps)"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$ROOT/dkms.conf")
make -s -C "$ROOT" install-dkms DESTDIR="$T/dkms-src" KVER="$KVER" >"$T/dkms-src.log" 2>&1 ||
	{ cat "$T/dkms-src.log"; fail "make install-dkms"; }
src=$T/dkms-src/usr/src
[ -f "$src/isocam-$ver/dkms.conf" ] || fail "no dkms.conf in $src/isocam-$ver"
mkdir -p "$T/dkms-tree"
dkms add -m isocam -v "$ver" --sourcetree "$src" --dkmstree "$T/dkms-tree" \
	>"$T/dkms.log" 2>&1 || { cat "$T/dkms.log"; fail "dkms add"; }
# For $KVER, and for every other supported Debian kernel whose headers
# are here (make deps installs 6.1 and 6.12): DKMS on a Debian 13 host.
# (7.2 built here has no /lib/modules/V/build: its tree is KDIR.)
kvers=$KVER
for series in 6.1 6.12; do
	k=$("$ROOT/scripts/find-kernel.sh" "$series" 2>/dev/null) || continue
	[ "$k" = "$KVER" ] || kvers="$kvers $k"
done
for k in $kvers; do
	kdir=/lib/modules/$k/build
	[ -d "$kdir" ] || kdir=${KDIR:?}
	dkms build -m isocam -v "$ver" -k "$k" --kernelsourcedir "$kdir" \
		--sourcetree "$src" --dkmstree "$T/dkms-tree" >>"$T/dkms.log" 2>&1 || {
		cat "$T/dkms.log" "$T"/dkms-tree/isocam/"$ver"/build/make.log 2>/dev/null
		fail "dkms build for $k"
	}
	for m in isocam ic1280; do
		ko=$(find "$T/dkms-tree/isocam/$ver/$k" -name "$m.ko*" | head -n 1)
		[ -n "$ko" ] || fail "dkms build made no $m.ko for $k"
		v=$(modinfo -F vermagic "$ko" | awk '{ print $1 }')
		[ "$v" = "$k" ] || fail "dkms built $m.ko for '$v', not $k"
		echo "install: dkms built ${ko#"$T"/}"
	done
done
# Outside the supported range DKMS declines instead of failing to build.
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$src/isocam-$ver/dkms.conf")
[ -n "$re" ] || fail "dkms.conf has no BUILD_EXCLUSIVE_KERNEL"
for k in $kvers 7.2.13-isocam; do
	[[ $k =~ $re ]] || fail "dkms.conf would not build for $k"
done
for k in 5.15.0-1-amd64 6.0.9 7.3.0-1-amd64; do
	! [[ $k =~ $re ]] || fail "dkms.conf would build for $k"
done
echo "install: ok"
