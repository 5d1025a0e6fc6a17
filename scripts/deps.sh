#!/bin/sh
# Install every Debian package isocam needs. Idempotent: packages already
# present are left alone, so a second run is quick and offline-safe.
set -eu

PKGS="
build-essential make gcc clang llvm lld libclang-rt-14-dev pkg-config
linux-image-amd64 linux-headers-amd64 linux-source-6.1 sparse kmod
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

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run 'make deps' as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
