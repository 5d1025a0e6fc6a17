# bench_usbip: CPU per frame of isocam-emu's whole USB/IP path at
# 640x480 YUYV 30 fps, against memcpy (release flags, like isocam-emu).
$(BUILD)/bench/bench_usbip: $(ROOT)/tests/bench/bench_usbip.c \
		$(USBIP_CLIENT_SRCS) $(EMU_SRCS) $(USBIP_CLIENT_HDRS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) $(USBIP_CLIENT_INCLUDES) -o $@ \
		$(filter %.c,$^) $(EMU_MODEL_LIBS)

BENCHES += $(BUILD)/bench/bench_usbip
