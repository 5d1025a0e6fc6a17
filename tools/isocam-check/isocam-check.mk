# isocam-check: verifies a capture (raw or MJPEG) frame by frame against
# the emulator's reference picture (gadget-emulator/picture/), as the VM
# scenarios and the demo use it; make install ships it with a man page.
# Its JPEG decoding (libjpeg-turbo) is shared with the unit tests.
ISOCAM_CHECK_DIR := $(ROOT)/tools/isocam-check
JPEG_DECODE_SRCS := $(ISOCAM_CHECK_DIR)/jpeg_decode.c
JPEG_DECODE_HDRS := $(ISOCAM_CHECK_DIR)/jpeg_decode.h

ISOCAM_CHECK := $(BUILD)/isocam-check

$(ISOCAM_CHECK): $(ISOCAM_CHECK_DIR)/isocam-check.c $(EMU_SCENE_SRCS) \
		$(EMU_MJPEG_SRCS) $(JPEG_DECODE_SRCS) $(EMU_MODEL_HDRS) \
		$(JPEG_DECODE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) -I$(ISOCAM_CHECK_DIR) \
		-o $@ $(filter %.c,$^) $(EMU_MJPEG_LIBS) -lm

USER_BINS += $(ISOCAM_CHECK)
