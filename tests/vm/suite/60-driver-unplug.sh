#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unplug: usbip detach at any moment is safe.
#  - idle, and with a handle open: a program holding the fd gets ENODEV
#    from ioctls and an error from poll, and can close it;
#  - in the middle of control changes (60-driver-unplug-stream.sh does it
#    while streaming);
#  - then rmmod is clean. The harness fails the script on any kernel
#    warning, oops or lockdep report in between.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"

require_cmd v4l2-ctl python3

driver_setup

step "unplug while idle"
plug
unplug

step "unplug with a handle open"
plug
# Holds the node open across the unplug; QUERYCAP before and after.
cat >/tmp/holdfd.py <<'EOF'
import errno, fcntl, os, select, sys, time
VIDIOC_QUERYCAP = 0x80685600
node, ready, go = sys.argv[1:4]
fd = os.open(node, os.O_RDWR)
fcntl.ioctl(fd, VIDIOC_QUERYCAP, bytearray(104))
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.05)
try:
    fcntl.ioctl(fd, VIDIOC_QUERYCAP, bytearray(104))
    sys.exit("QUERYCAP succeeded after unplug")
except OSError as e:
    if e.errno != errno.ENODEV:
        sys.exit("QUERYCAP after unplug: %s, expected ENODEV" % e)
p = select.poll()
p.register(fd, select.POLLIN | select.POLLPRI)
ev = p.poll(1000)
if not ev or not ev[0][1] & select.POLLERR:
    sys.exit("poll after unplug: %r, expected POLLERR" % ev)
os.close(fd)
print("holdfd: ENODEV and POLLERR after unplug, closed cleanly")
EOF
rm -f /tmp/ready /tmp/go
python3 /tmp/holdfd.py "$NODE" /tmp/ready /tmp/go &
BG_PID=$!
camera_track "$BG_PID"
wait_for '[ -e /tmp/ready ]' 10 "the holder to open $NODE"
unplug
touch /tmp/go
wait "$BG_PID" || fail "the fd holder saw something wrong"
BG_PID=

step "unplug in the middle of control changes"
plug
unplug_during "control writes" \
	'v4l2-ctl -d "$NODE" -c brightness=$((n % 100)),contrast=$((n % 200))'

step "clean rmmod"
stop_emu
unload_isocam_modules
modprobe -r vhci-hcd
log "60-driver-unplug: ok"
