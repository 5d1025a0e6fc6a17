# Benchmarks: numbers as ratios to a reference measured in the same run.
# bench_scene: the emulator's per-frame cost against memcpy. Built with
# the release flags: it measures what isocam-emu runs.
$(BUILD)/bench/bench_scene: $(ROOT)/tests/bench/bench_scene.c \
		$(ROOT)/tests/bench/bench_ref.h \
		$(EMU_MODEL_SRCS) $(EMU_FAULT_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) -o $@ $(filter %.c,$^) \
		$(EMU_MODEL_LIBS)

BENCHES += $(BUILD)/bench/bench_scene

# bench_mjpeg: the bridge's JPEG encoder, a real encode and a rotated frame
# against memcpy of the raw frame.
$(BUILD)/bench/bench_mjpeg: $(ROOT)/tests/bench/bench_mjpeg.c \
		$(ROOT)/tests/bench/bench_ref.h \
		$(EMU_MJPEG_SRCS) $(EMU_SCENE_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) -o $@ $(filter %.c,$^) \
		$(EMU_MJPEG_LIBS)

BENCHES += $(BUILD)/bench/bench_mjpeg

# testusb, from the kernel source's tools/usb/ (not ours: built as is,
# without -Werror), for the transport benchmark's reference run in the VM.
KERNEL_SRC_TARBALL ?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
$(BUILD)/bench/testusb:
	@[ -n "$(KERNEL_SRC_TARBALL)" ] || { echo "bench: no /usr/src/linux-source-*.tar.xz (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	tar -xJOf $(KERNEL_SRC_TARBALL) --wildcards '*/tools/usb/testusb.c' >$@.c
	$(CC) -O2 -pthread -o $@ $@.c
