#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A current v4l2-compliance beside bookworm's 1.22, which reports false
# failures on newer kernels (6.12: CREATE_BUFS fills a field 1.22 takes
# for reserved). Only the compliance test: v4l2-ctl and media-ctl stay
# bookworm's, which work on every kernel here (1.32's v4l2-ctl fails its
# subdev commands on 6.1, which has no client capabilities).
# Debian 12 has no newer build, sid's needs sid's glibc, and the archive
# here has no v4l-utils source: so sid's binary packages are unpacked
# (never installed: nothing on the system moves) with the libraries they
# need, and the tool runs through that glibc's own loader.
#
#   tests/vm/harness/v4l-utils.sh         prints the directory (bin/ in it:
#                                       v4l2-compliance)
#   tests/vm/harness/v4l-utils.sh --dir   prints it only if already there
#
# Cached in ${ISOCAM_CACHE:-/var/cache/isocam}/v4l2-compliance-<version>/.
set -euo pipefail

CACHE=${ISOCAM_CACHE:-/var/cache/isocam}
SUITE=sid
PKGS=(v4l-utils libv4l-0t64 libv4lconvert0t64 libv4l2rds0t64 libc6 libgcc-s1
	libstdc++6 libjson-c5 libudev1 libcap2 libjpeg62-turbo)
TOOLS=(v4l2-compliance)

die() { echo "v4l-utils: $*" >&2; exit 1; }

only_dir=
[ "${1:-}" != --dir ] || only_dir=1

ver=$(apt-cache show "v4l-utils/$SUITE" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
if [ -z "$ver" ]; then
	# No package lists for sid (yet): whatever was unpacked before.
	dir=$(ls -d "$CACHE"/v4l2-compliance-*/ 2>/dev/null | sort -V | tail -n 1)
	[ -n "$dir" ] && [ -x "${dir}bin/v4l2-compliance" ] && { echo "${dir%/}"; exit 0; }
	[ -n "$only_dir" ] && exit 1
	die "no v4l-utils in $SUITE's package lists (make deps adds $SUITE at a low pin priority)"
fi
DIR=$CACHE/v4l2-compliance-$ver
if [ -x "$DIR/bin/v4l2-compliance" ]; then
	echo "$DIR"
	exit 0
fi
[ -z "$only_dir" ] || exit 1

mkdir -p "$CACHE" || die "cannot create $CACHE (run as root or set ISOCAM_CACHE)"
exec 9>"$CACHE/.lock-v4l-utils"
flock 9
if [ -x "$DIR/bin/v4l2-compliance" ]; then
	echo "$DIR"
	exit 0
fi
part=$DIR.part
rm -rf "$part"
mkdir -p "$part/debs" "$part/root" "$part/bin"
(
	cd "$part/debs"
	for p in "${PKGS[@]}"; do
		apt-get download -q "$p/$SUITE" >/dev/null 2>&1 ||
			die "apt-get download $p/$SUITE failed"
	done
	for d in *.deb; do dpkg-deb -x "$d" "$part/root"; done
)
root=$DIR/root
loader=$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
[ -e "$part/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] || die "no loader in $SUITE's libc6"
libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
for t in "${TOOLS[@]}"; do
	[ -x "$part/root/usr/bin/$t" ] || die "$SUITE's v4l-utils has no $t"
	printf '#!/bin/sh\n# %s %s from %s, through its own glibc (tests/vm/harness/v4l-utils.sh)\nexec %s --library-path %s %s "$@"\n' \
		"$t" "$ver" "$SUITE" "$loader" "$libs" "$root/usr/bin/$t" >"$part/bin/$t"
	chmod 755 "$part/bin/$t"
done
rm -rf "$part/debs"
mv "$part" "$DIR"
"$DIR/bin/v4l2-compliance" --version >/dev/null 2>&1 ||
	{ rm -rf "$DIR"; die "sid's v4l2-compliance does not run here"; }
echo "v4l-utils: $ver unpacked in $DIR" >&2
echo "$DIR"
