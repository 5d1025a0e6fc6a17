# isocam-emu: the emulated camera served over USB/IP or FunctionFS.
include $(ROOT)/gadget-emulator/model.mk

EMU_DIR := $(ROOT)/gadget-emulator
# Everything USB and network (this file's owner), USB/IP and FunctionFS
# (ffs_*, configfs_gadget); model.mk has the insides.
EMU_USB_SRCS := $(EMU_DIR)/usbip_proto.c $(EMU_DIR)/usb_descriptors.c \
	$(EMU_DIR)/i2c_bus.c $(EMU_DIR)/bridge.c $(EMU_DIR)/fault.c \
	$(EMU_DIR)/log.c $(EMU_DIR)/usbip_reply.c $(EMU_DIR)/usbip_session.c \
	$(EMU_DIR)/usbip_server.c $(EMU_DIR)/ffs_ep0.c \
	$(EMU_DIR)/configfs_gadget.c $(EMU_DIR)/ffs_video.c \
	$(EMU_DIR)/ffs_gadget.c
EMU_SRCS := $(EMU_USB_SRCS) $(EMU_MODEL_SRCS)
EMU_HDRS := $(wildcard $(EMU_DIR)/*.h) $(wildcard $(ROOT)/include/isocam/*.h)

EMU_BIN := $(BUILD)/isocam-emu
USER_BINS += $(EMU_BIN)

$(EMU_BIN): $(EMU_DIR)/main.c $(EMU_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -I$(EMU_DIR) -o $@ $(filter %.c,$^) \
		$(EMU_MODEL_LIBS)
