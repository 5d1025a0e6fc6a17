# isocam-usbcheck: libusb-1.0 check of a camera without the kernel
# driver (chip ID by vendor i2c requests, 300 frames by isochronous
# transfers, every stamp verified). Run by tests/vm/suite/20-emu-usbip.sh.
USBCHECK_BIN := $(BUILD)/isocam-usbcheck
USER_BINS += $(USBCHECK_BIN)

$(USBCHECK_BIN): $(ROOT)/tests/usb/isocam-usbcheck.c $(CORE_SRCS) \
		$(EMU_SCENE_SRCS) $(CORE_HDRS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -I$(ROOT)/core $(EMU_INCLUDES) \
		$$(pkg-config --cflags libusb-1.0) -o $@ $(filter %.c,$^) \
		$$(pkg-config --libs libusb-1.0)
