# SPDX-License-Identifier: GPL-2.0
"""Hold one of the camera's files across an unplug, then check what the
driver does with it (tests/vm/suite/6x-driver-*.sh).

  holder.py MODE PATH READY GO

opens PATH, does MODE's setup, creates the file READY, waits until the file
GO exists (the test unplugs in between), checks what MODE expects after the
unplug, closes, and exits 0 with one line on stdout, or non-zero with why.
MODEs:
  i2c      /dev/i2c-N: reads the sensor's chip ID; after: a transfer fails
  video    /dev/videoN: reads the format; after: that fails, closes
  events   /dev/videoN: subscribes to brightness events; after: closes
  dmabuf   /dev/videoN: exports buffer 0 as a DMABUF, hands it to a child
           that maps it, and closes the node; after: the child still reads
           the mapping, then unmaps and closes it
  timeout0 /dev/i2c-N: I2C_TIMEOUT 0 (no READY/GO); a transfer must end
           within 10 s, whatever the device does
  subdev   /dev/v4l-subdevN: reads the active format and subscribes to
           brightness events; after: reading the format fails, closes
  media    /dev/mediaN: reads the device info; after: that fails, closes
"""
import errno
import fcntl
import mmap
import os
import socket
import struct
import sys
import time

I2C_SLAVE_FORCE = 0x0706
I2C_TIMEOUT = 0x0702
VIDIOC_SUBSCRIBE_EVENT = 0x4020565A
VIDIOC_G_FMT = 0xC0D05604
VIDIOC_REQBUFS = 0xC0145608
VIDIOC_QUERYBUF = 0xC0585609
VIDIOC_EXPBUF = 0xC0405610
VIDIOC_SUBDEV_G_FMT = 0xC0585604
MEDIA_IOC_DEVICE_INFO = 0xC1007C00
V4L2_SUBDEV_FORMAT_ACTIVE = 1
V4L2_EVENT_CTRL = 3
V4L2_CID_BRIGHTNESS = 0x00980900
V4L2_BUF_TYPE_VIDEO_CAPTURE = 1
V4L2_MEMORY_MMAP = 1
SENSOR_ADDR = 0x3C
CHIP_ID = b"\x12\x80"


def wait_go(ready, go):
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)


def sensor_read(fd):
    fcntl.ioctl(fd, I2C_SLAVE_FORCE, SENSOR_ADDR)
    os.write(fd, b"\x00\x00")
    return os.read(fd, 2)


def mode_i2c(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    got = sensor_read(fd)
    if got != CHIP_ID:
        sys.exit("chip id %r, expected %r" % (got, CHIP_ID))
    wait_go(ready, go)
    try:
        sensor_read(fd)
        sys.exit("an i2c transfer succeeded after the unplug")
    except OSError as e:
        err = errno.errorcode.get(e.errno, e.errno)
    os.close(fd)
    print("holder i2c: chip id read, after unplug a transfer failed with %s, closed" % err)


def mode_events(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    sub = struct.pack("=III5I", V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0, 0, 0, 0, 0, 0)
    fcntl.ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, bytearray(sub))
    wait_go(ready, go)
    os.close(fd)
    print("holder events: subscribed, closed after the unplug")


def mode_video(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    fmt = bytearray(208)
    struct.pack_into("=I", fmt, 0, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    fcntl.ioctl(fd, VIDIOC_G_FMT, fmt)
    width, height = struct.unpack_from("=II", fmt, 8)
    wait_go(ready, go)
    err = failing(fd, VIDIOC_G_FMT, fmt)
    os.close(fd)
    print("holder video: %ux%u; after the unplug G_FMT failed with %s, closed" % (width, height, err))


def mode_dmabuf(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    rb = bytearray(struct.pack("=IIIII", 2, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_MMAP, 0, 0))
    fcntl.ioctl(fd, VIDIOC_REQBUFS, rb)
    qb = bytearray(88)
    struct.pack_into("=II", qb, 0, 0, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    struct.pack_into("=I", qb, 60, V4L2_MEMORY_MMAP)
    fcntl.ioctl(fd, VIDIOC_QUERYBUF, qb)
    length = struct.unpack_from("=I", qb, 72)[0]
    eb = bytearray(64)
    struct.pack_into("=IIIII", eb, 0, V4L2_BUF_TYPE_VIDEO_CAPTURE, 0, 0, os.O_RDWR | os.O_CLOEXEC, 0)
    fcntl.ioctl(fd, VIDIOC_EXPBUF, eb)
    dfd = struct.unpack_from("=i", eb, 16)[0]
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        parent.close()
        os.close(fd)
        os.close(dfd)
        _, fds, _, _ = socket.recv_fds(child, 16, 1)
        m = mmap.mmap(fds[0], length, mmap.MAP_SHARED, mmap.PROT_READ)
        m[0:16]
        child.send(b"m")
        child.recv(1)  # after the unplug
        m[length - 16:length]
        m.close()
        os.close(fds[0])
        os._exit(0)
    child.close()
    socket.send_fds(parent, [b"d"], [dfd])
    os.close(dfd)
    if parent.recv(1) != b"m":
        sys.exit("the child did not map the DMABUF")
    os.close(fd)  # the node is closed; only the child's mapping is left
    wait_go(ready, go)
    parent.send(b"g")
    _, status = os.waitpid(pid, 0)
    if status:
        sys.exit("the DMABUF child failed after the unplug: status %d" % status)
    print("holder dmabuf: %d-byte buffer exported and mapped by a child, read after the unplug, unmapped" % length)


def mode_timeout0(path, *_):
    fd = os.open(path, os.O_RDWR)
    fcntl.ioctl(fd, I2C_TIMEOUT, 0)
    t = time.monotonic()
    try:
        sensor_read(fd)
        res = "succeeded"
    except OSError as e:
        res = "failed with %s" % errno.errorcode.get(e.errno, e.errno)
    took = time.monotonic() - t
    os.close(fd)
    if took > 10:
        sys.exit("a transfer with I2C_TIMEOUT 0 took %.1f s" % took)
    print("holder timeout0: transfer %s after %.2f s" % (res, took))


def failing(fd, req, buf):
    """The ioctl's errno name, or exit if it succeeds."""
    try:
        fcntl.ioctl(fd, req, buf)
    except OSError as e:
        return errno.errorcode.get(e.errno, e.errno)
    sys.exit("ioctl 0x%08x succeeded after the unplug" % req)


def mode_subdev(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    fmt = bytearray(88)
    struct.pack_into("=II", fmt, 0, V4L2_SUBDEV_FORMAT_ACTIVE, 0)
    fcntl.ioctl(fd, VIDIOC_SUBDEV_G_FMT, fmt)
    width, height = struct.unpack_from("=II", fmt, 8)
    sub = struct.pack("=III5I", V4L2_EVENT_CTRL, V4L2_CID_BRIGHTNESS, 0, 0, 0, 0, 0, 0)
    fcntl.ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, bytearray(sub))
    wait_go(ready, go)
    err = failing(fd, VIDIOC_SUBDEV_G_FMT, fmt)
    os.close(fd)
    print("holder subdev: %ux%u active, subscribed; after the unplug G_FMT failed with %s, closed" % (width, height, err))


def mode_media(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    info = bytearray(256)
    fcntl.ioctl(fd, MEDIA_IOC_DEVICE_INFO, info)
    model = bytes(info[16:48]).split(b"\0")[0].decode()
    wait_go(ready, go)
    err = failing(fd, MEDIA_IOC_DEVICE_INFO, info)
    os.close(fd)
    print("holder media: model %r; after the unplug DEVICE_INFO failed with %s, closed" % (model, err))


MODES = {"i2c": mode_i2c, "video": mode_video, "events": mode_events, "dmabuf": mode_dmabuf,
         "timeout0": mode_timeout0, "subdev": mode_subdev,
         "media": mode_media}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    MODES[sys.argv[1]](*sys.argv[2:])
