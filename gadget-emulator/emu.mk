# isocam-emu: the emulated camera (model.mk's layers) served by one of
# two transports, each in its own folder, neither reaching the other:
#   usbip/  the USB/IP codec, the server, a session per imported camera
#   ffs/    a real USB gadget through configfs and FunctionFS
# main.c picks one.
include $(ROOT)/gadget-emulator/model.mk

EMU_USBIP_SRCS := $(EMU_DIR)/usbip/usbip_proto.c \
	$(EMU_DIR)/usbip/usbip_reply.c $(EMU_DIR)/usbip/usbip_hostile.c \
	$(EMU_DIR)/usbip/usbip_device.c $(EMU_DIR)/usbip/usbip_session.c \
	$(EMU_DIR)/usbip/usbip_server.c
EMU_FFS_SRCS := $(EMU_DIR)/ffs/ffs_ep0.c $(EMU_DIR)/ffs/configfs_gadget.c \
	$(EMU_DIR)/ffs/ffs_video.c $(EMU_DIR)/ffs/ffs_gadget.c
EMU_SRCS := $(EMU_UTIL_SRCS) $(EMU_FAULT_SRCS) $(EMU_DEVICE_SRCS) \
	$(EMU_MODEL_SRCS) $(EMU_USBIP_SRCS) $(EMU_FFS_SRCS)
EMU_HDRS := $(EMU_MODEL_HDRS)

EMU_BIN := $(BUILD)/isocam-emu
USER_BINS += $(EMU_BIN)

$(EMU_BIN): $(EMU_DIR)/main.c $(EMU_SRCS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) -o $@ $(filter %.c,$^) \
		$(EMU_MODEL_LIBS)
