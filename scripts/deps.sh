#!/bin/sh
# Install every Debian package isocam needs. Idempotent: packages already
# present are left alone, so a second run is quick and offline-safe.
set -eu

PKGS="
build-essential make gcc clang llvm lld libclang-rt-14-dev pkg-config
linux-image-amd64 linux-headers-amd64 linux-source-6.1 sparse kmod shellcheck
qemu-system-x86 busybox-static cpio xz-utils
usbip usbutils v4l-utils i2c-tools ffmpeg
gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
libusb-1.0-0-dev libcmocka-dev libjpeg62-turbo-dev
flex bison bc libelf-dev libssl-dev
python3 perl stress-ng gnuplot-nox dkms man-db
udev pipewire wireplumber gstreamer1.0-pipewire dbus-daemon
"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

# The other kernels isocam supports (scripts/find-kernel.sh): 6.12
# (Debian 13's series; Debian 12's security archive and bookworm-backports
# carry its image and headers, which install as they are) and sid's
# linux-source-7.2, built here. Both suites are added at a low pin
# priority, and only linux-source-7.2 is taken from sid, as pkg/suite:
# never with -t, which moved glibc and half the system to sid here.
have_612=
for img in /boot/vmlinuz-6.12.*; do
	[ -e "$img" ] && [ -f "/lib/modules/${img#/boot/vmlinuz-}/build/Makefile" ] && have_612=1
done
have_72=
[ -e /usr/src/linux-source-7.2.tar.xz ] && have_72=1

V4L_UTILS=$(dirname "$0")/../tests/vm/harness/v4l-utils.sh
have_v4l=
"$V4L_UTILS" --dir >/dev/null 2>&1 && have_v4l=1

if [ -z "$missing" ] && [ -n "$have_612" ] && [ -n "$have_72" ] && [ -n "$have_v4l" ]; then
	echo "deps: all packages present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	[ -n "$have_612" ] || missing="$missing linux-image/headers-6.12"
	[ -n "$have_72" ] || missing="$missing linux-source-7.2"
	[ -n "$have_v4l" ] || missing="$missing v4l-utils/sid(unpacked)"
	echo "deps: missing:$missing" >&2
	echo "deps: run 'make deps' as root" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
src=/etc/apt/sources.list.d/isocam-kernels.sources
pin=/etc/apt/preferences.d/isocam-kernels
cat >"$src" <<'EOF'
# isocam (scripts/deps.sh): the 6.12 kernel and linux-source-7.2 only.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cat >"$pin" <<'EOF'
# isocam (scripts/deps.sh): nothing moves to these suites by itself.
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100

Package: *
Pin: release n=sid
Pin-Priority: 50
EOF
apt-get update -q

if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
if [ -z "$have_612" ]; then
	# The newest 6.12 whose image and headers are both in the archive.
	v=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\) .*/\1/p' | sort -V |
		while read -r k; do
			apt-cache show "linux-image-$k" >/dev/null 2>&1 && echo "$k"
		done | tail -n 1)
	[ -n "$v" ] || { echo "deps: no linux-image and linux-headers 6.12.N+deb12-amd64 in the archive" >&2; exit 1; }
	echo "deps: installing the 6.12 kernel $v"
	apt-get install -y -q --no-install-recommends \
		"linux-image-$v" "linux-headers-$v"
fi
if [ -z "$have_72" ]; then
	echo "deps: installing linux-source-7.2 (sid)"
	apt-get install -y -q --no-install-recommends linux-source-7.2/sid
fi

# v4l-utils matching the newer kernels (tests/vm/harness/v4l-utils.sh):
# sid's, unpacked beside the system's, never installed.
[ -n "$have_v4l" ] || "$V4L_UTILS" >/dev/null
