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
  stream   /dev/videoN: streams (4 MMAP buffers, one frame dequeued, all
           queued again); after: DQBUF fails, closes
  ctrl     /dev/videoN: writes brightness over and over from a thread,
           through the unplug; after: the writes have stopped with an
           error, closes
  events   /dev/videoN: subscribes to brightness events; after: closes
  dmabuf   /dev/videoN: exports buffer 0 as a DMABUF, hands it to a child
           that maps it, and closes the node; after: the child still reads
           the mapping, then unmaps and closes it
  i2cfirst an adapter name prefix instead of PATH: creates READY.polling,
           waits for that adapter's /dev/i2c-N to appear (as soon as the
           bridge's probe registers it) and opens it; after: a transfer
           fails, closes
  timeout0 /dev/i2c-N: I2C_TIMEOUT 0 (no READY/GO); a transfer must end
           within 10 s, whatever the device does
  subdev   /dev/v4l-subdevN: reads the active format and subscribes to
           brightness events; after: reading the format fails, closes
  media    /dev/mediaN: reads the device info; after: that fails, closes
  regs     /dev/v4l-subdevN: reads the sensor's CHIP_ID over and over
           (VIDIOC_DBG_G_REGISTER) from a thread, through the unplug; a
           bridge that stops answering leaves a read waiting in the
           sensor's regmap when the sensor is unbound; after: the reads
           have stopped with an error, closes
  subdevtry /dev/v4l-subdevN (no READY/GO): the TRY frame interval follows
           a TRY format the way the active one does (kernels from 6.8;
           before, the subdev has no TRY interval and this says so)
"""
import ctypes
import errno
import fcntl
import mmap
import os
import socket
import struct
import sys
import threading
import time

I2C_RDWR = 0x0707
I2C_M_RD = 0x0001
I2C_TIMEOUT = 0x0702
VIDIOC_SUBSCRIBE_EVENT = 0x4020565A
VIDIOC_G_FMT = 0xC0D05604
VIDIOC_REQBUFS = 0xC0145608
VIDIOC_QBUF = 0xC058560F
VIDIOC_DQBUF = 0xC0585611
VIDIOC_STREAMON = 0x40045612
VIDIOC_S_CTRL = 0xC008561C
VIDIOC_QUERYBUF = 0xC0585609
VIDIOC_EXPBUF = 0xC0405610
VIDIOC_DBG_G_REGISTER = 0xC0385650
VIDIOC_SUBDEV_G_FMT = 0xC0585604
VIDIOC_SUBDEV_S_FMT = 0xC0585605
VIDIOC_SUBDEV_G_FRAME_INTERVAL = 0xC0305615
VIDIOC_SUBDEV_S_FRAME_INTERVAL = 0xC0305616
VIDIOC_SUBDEV_S_CLIENT_CAP = 0xC0085666
V4L2_SUBDEV_CLIENT_CAP_INTERVAL_USES_WHICH = 1 << 1
V4L2_SUBDEV_FORMAT_TRY = 0
MEDIA_IOC_DEVICE_INFO = 0xC1007C00
V4L2_SUBDEV_FORMAT_ACTIVE = 1
V4L2_EVENT_CTRL = 3
V4L2_CID_BRIGHTNESS = 0x00980900
V4L2_BUF_TYPE_VIDEO_CAPTURE = 1
V4L2_MEMORY_MMAP = 1
SENSOR_ADDR = 0x3C
CHIP_ID = b"\x12\x80"


class I2cMsg(ctypes.Structure):
    _fields_ = [("addr", ctypes.c_uint16), ("flags", ctypes.c_uint16),
                ("len", ctypes.c_uint16), ("buf", ctypes.c_void_p)]


class I2cRdwr(ctypes.Structure):
    _fields_ = [("msgs", ctypes.c_void_p), ("nmsgs", ctypes.c_uint32)]


def wait_go(ready, go):
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)


def sensor_read(fd):
    """CHIP_ID in one combined transfer (I2C_RDWR): a write of the
    register address and a read, which no other user of the bus (the
    sensor driver writing a control) can come between."""
    wbuf = ctypes.create_string_buffer(b"\x00\x00", 2)
    rbuf = ctypes.create_string_buffer(2)
    msgs = (I2cMsg * 2)(I2cMsg(SENSOR_ADDR, 0, 2, ctypes.addressof(wbuf)),
                        I2cMsg(SENSOR_ADDR, I2C_M_RD, 2, ctypes.addressof(rbuf)))
    data = I2cRdwr(ctypes.addressof(msgs), 2)
    fcntl.ioctl(fd, I2C_RDWR, data)
    return rbuf.raw


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


def i2c_dev_named(prefix):
    for n in os.listdir("/sys/class/i2c-dev"):
        try:
            with open("/sys/class/i2c-dev/%s/name" % n) as f:
                if f.read().startswith(prefix):
                    return "/dev/" + n
        except OSError:
            pass
    return None


def mode_i2cfirst(prefix, ready, go):
    deadline = time.monotonic() + 60
    open(ready + ".polling", "w").close()
    while True:
        path = i2c_dev_named(prefix)
        try:
            fd = os.open(path, os.O_RDWR) if path else -1
        except FileNotFoundError:
            fd = -1
        if fd >= 0:
            break
        if time.monotonic() > deadline:
            sys.exit("no %r adapter's /dev/i2c-N in 60 s" % prefix)
        time.sleep(0.001)
    wait_go(ready, go)
    try:
        sensor_read(fd)
        sys.exit("an i2c transfer on %s succeeded after the probe failed" % path)
    except OSError as e:
        err = errno.errorcode.get(e.errno, e.errno)
    os.close(fd)
    print("holder i2cfirst: %s open from its first moment; after: a transfer failed with %s, closed" % (path, err))


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


def v4l2_buffer(index):
    b = bytearray(88)
    struct.pack_into("=II", b, 0, index, V4L2_BUF_TYPE_VIDEO_CAPTURE)
    struct.pack_into("=I", b, 60, V4L2_MEMORY_MMAP)
    return b


def mode_stream(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    rb = bytearray(struct.pack("=IIIII", 4, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_MEMORY_MMAP, 0, 0))
    fcntl.ioctl(fd, VIDIOC_REQBUFS, rb)
    count = struct.unpack_from("=I", rb, 0)[0]
    for i in range(count):
        fcntl.ioctl(fd, VIDIOC_QBUF, v4l2_buffer(i))
    fcntl.ioctl(fd, VIDIOC_STREAMON, bytearray(struct.pack("=I", V4L2_BUF_TYPE_VIDEO_CAPTURE)))
    b = v4l2_buffer(0)
    fcntl.ioctl(fd, VIDIOC_DQBUF, b)
    seq = struct.unpack_from("=I", b, 56)[0]
    fcntl.ioctl(fd, VIDIOC_QBUF, v4l2_buffer(struct.unpack_from("=I", b, 0)[0]))
    wait_go(ready, go)
    err = failing(fd, VIDIOC_DQBUF, v4l2_buffer(0))
    os.close(fd)
    print("holder stream: %d buffers, frame %d dequeued; after the unplug DQBUF failed with %s, closed" % (count, seq, err))


def through_unplug(what, op, before, ready, go):
    """Run op(n) from a thread over and over, n counting the calls done:
    at least `before` of them before the unplug (READY), and after it
    (GO) the calls must stop with an error within 10 s. Returns the count
    and the error's name."""
    state = {"n": 0, "err": None}

    def loop():
        try:
            while True:
                op(state["n"])
                state["n"] += 1
        except OSError as e:
            state["err"] = errno.errorcode.get(e.errno, e.errno)

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    while state["n"] < before and t.is_alive():
        time.sleep(0.01)
    if not t.is_alive():
        sys.exit("%s failed before the unplug: %s" % (what, state["err"]))
    wait_go(ready, go)
    t.join(10)
    if t.is_alive():
        sys.exit("%s still succeed 10 s after the unplug" % what)
    return state["n"], state["err"]


def mode_ctrl(path, ready, go):
    fd = os.open(path, os.O_RDWR)

    def write(n):
        c = struct.pack("=Ii", V4L2_CID_BRIGHTNESS, n % 200 - 100)
        fcntl.ioctl(fd, VIDIOC_S_CTRL, bytearray(c))

    n, err = through_unplug("brightness writes", write, 10, ready, go)
    os.close(fd)
    print("holder ctrl: %d brightness writes; the unplug stopped them with %s, closed" % (n, err))


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


def mode_regs(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    chip = []

    def read(_):
        # struct v4l2_dbg_register (packed): match, size, reg, val
        r = bytearray(56)
        fcntl.ioctl(fd, VIDIOC_DBG_G_REGISTER, r)
        chip[:] = [struct.unpack_from("=Q", r, 48)[0]]

    n, err = through_unplug("register reads", read, 3, ready, go)
    os.close(fd)
    print("holder regs: %d reads of CHIP_ID (0x%02x); the unplug stopped them with %s, closed" % (n, chip[0], err))


def mode_media(path, ready, go):
    fd = os.open(path, os.O_RDWR)
    info = bytearray(256)
    fcntl.ioctl(fd, MEDIA_IOC_DEVICE_INFO, info)
    model = bytes(info[16:48]).split(b"\0")[0].decode()
    wait_go(ready, go)
    err = failing(fd, MEDIA_IOC_DEVICE_INFO, info)
    os.close(fd)
    print("holder media: model %r; after the unplug DEVICE_INFO failed with %s, closed" % (model, err))


def subdev_ival(fd, req, which, num=0, den=0):
    fi = bytearray(48)
    struct.pack_into("=IIIII", fi, 0, 0, num, den, 0, which)
    fcntl.ioctl(fd, req, fi)
    return struct.unpack_from("=II", fi, 4)


def mode_subdevtry(path, *_):
    fd = os.open(path, os.O_RDWR)
    cap = bytearray(struct.pack("=Q", V4L2_SUBDEV_CLIENT_CAP_INTERVAL_USES_WHICH))
    try:
        fcntl.ioctl(fd, VIDIOC_SUBDEV_S_CLIENT_CAP, cap)
    except OSError as e:
        if e.errno != errno.ENOTTY:
            raise
        os.close(fd)
        print("holder subdevtry: no client capabilities (before 6.8): no TRY interval to check")
        return
    if not struct.unpack("=Q", cap)[0] & V4L2_SUBDEV_CLIENT_CAP_INTERVAL_USES_WHICH:
        sys.exit("the kernel has client capabilities but not INTERVAL_USES_WHICH")
    active = subdev_ival(fd, VIDIOC_SUBDEV_G_FRAME_INTERVAL, V4L2_SUBDEV_FORMAT_ACTIVE)

    def try_fmt(w, h):
        f = bytearray(88)
        struct.pack_into("=IIII", f, 0, V4L2_SUBDEV_FORMAT_TRY, 0, w, h)
        fcntl.ioctl(fd, VIDIOC_SUBDEV_S_FMT, f)
        return struct.unpack_from("=II", f, 8)

    try_fmt(640, 480)
    got = subdev_ival(fd, VIDIOC_SUBDEV_S_FRAME_INTERVAL, V4L2_SUBDEV_FORMAT_TRY, 1, 60)
    if got != (1, 60):
        sys.exit("TRY 1/60 at 640x480 gave %d/%d" % got)
    w, h = try_fmt(1280, 960)
    got = subdev_ival(fd, VIDIOC_SUBDEV_G_FRAME_INTERVAL, V4L2_SUBDEV_FORMAT_TRY)
    if got[1] * 1 >= 60 * got[0]:
        sys.exit("TRY interval %d/%d kept at %ux%u, which cannot run at 60 fps" % (got + (w, h)))
    now = subdev_ival(fd, VIDIOC_SUBDEV_G_FRAME_INTERVAL, V4L2_SUBDEV_FORMAT_ACTIVE)
    if now != active:
        sys.exit("TRY changes moved the active interval: %d/%d, was %d/%d" % (now + active))
    os.close(fd)
    print("holder subdevtry: TRY 1/60 at 640x480; TRY %ux%u took it to %d/%d; active %d/%d untouched" % ((w, h) + got + active))


MODES = {"i2c": mode_i2c, "video": mode_video, "stream": mode_stream,
         "ctrl": mode_ctrl, "events": mode_events, "dmabuf": mode_dmabuf,
         "timeout0": mode_timeout0, "i2cfirst": mode_i2cfirst, "subdev": mode_subdev,
         "media": mode_media, "subdevtry": mode_subdevtry, "regs": mode_regs}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in MODES:
        sys.exit(__doc__)
    MODES[sys.argv[1]](*sys.argv[2:])
