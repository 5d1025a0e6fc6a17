# Host unit tests of isocam-emu's USB and network side: the USB/IP codec,
# the bridge (descriptors, ep0, vendor i2c), fault injection, video
# replies as gather lists and a whole server session over a socketpair.
EMU_USB_UNIT_CFLAGS := $(TEST_CFLAGS) $(EMU_INCLUDES)

$(BUILD)/tests/test_emu_usbip: $(ROOT)/tests/unit/test_emu_usbip.c \
		$(EMU_DIR)/usbip/usbip_proto.c $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(BUILD)/tests/test_emu_fault: $(ROOT)/tests/unit/test_emu_fault.c \
		$(EMU_FAULT_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(BUILD)/tests/test_emu_bridge: $(ROOT)/tests/unit/test_emu_bridge.c \
		$(EMU_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MODEL_LIBS)

$(BUILD)/tests/test_emu_server: $(ROOT)/tests/unit/test_emu_server.c \
		$(USBIP_CLIENT_SRCS) $(EMU_SRCS) $(CORE_SRCS) \
		$(USBIP_CLIENT_HDRS) $(EMU_HDRS) $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) $(USBIP_CLIENT_INCLUDES) -I$(ROOT)/core \
		-o $@ $(filter %.c,$^) -lcmocka $(EMU_MODEL_LIBS)

# --hostile: every mode, dormant and armed, over sessions and the bridge.
$(BUILD)/tests/test_emu_hostile: $(ROOT)/tests/unit/test_emu_hostile.c \
		$(USBIP_CLIENT_SRCS) $(EMU_SRCS) $(USBIP_CLIENT_HDRS) \
		$(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) $(USBIP_CLIENT_INCLUDES) -o $@ \
		$(filter %.c,$^) -lcmocka $(EMU_MODEL_LIBS)

# Video replies sent from the frame buffer against copied ones.
$(BUILD)/tests/test_emu_reply: $(ROOT)/tests/unit/test_emu_reply.c \
		$(EMU_DIR)/usbip/usbip_reply.c \
		$(EMU_DIR)/usbip/usbip_proto.c \
		$(EMU_FAULT_SRCS) $(EMU_MODEL_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MODEL_LIBS)

UNIT_TESTS += $(BUILD)/tests/test_emu_hostile $(BUILD)/tests/test_emu_reply
UNIT_TESTS += $(BUILD)/tests/test_emu_usbip $(BUILD)/tests/test_emu_fault \
	$(BUILD)/tests/test_emu_bridge $(BUILD)/tests/test_emu_server

# --gadget=ffs: FunctionFS blobs, ep0 dispatch over a socketpair, the
# configfs plumbing in a temporary tree.
$(BUILD)/tests/test_emu_ffs: $(ROOT)/tests/unit/test_emu_ffs.c \
		$(EMU_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_USB_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MODEL_LIBS)

UNIT_TESTS += $(BUILD)/tests/test_emu_ffs
