# Host unit tests of the emulated camera's insides: the ic1280 register
# file, the scene renderer, the bridge's packetizer and JPEG encoder.
EMU_UNIT_CFLAGS := $(TEST_CFLAGS) $(EMU_INCLUDES)

$(BUILD)/tests/test_emu_sensor: $(ROOT)/tests/unit/test_emu_sensor.c \
		$(EMU_DIR)/device/ic1280_model.c $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(BUILD)/tests/test_emu_scene: $(ROOT)/tests/unit/test_emu_scene.c \
		$(EMU_SCENE_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(BUILD)/tests/test_emu_isp: $(ROOT)/tests/unit/test_emu_isp.c \
		$(EMU_SCENE_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

# Links a fault double (in the test) instead of E1's fault.c, so the
# packetizer's fault paths are driven deterministically.
$(BUILD)/tests/test_emu_stream: $(ROOT)/tests/unit/test_emu_stream.c \
		$(EMU_MODEL_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MODEL_LIBS)

$(BUILD)/tests/test_emu_mjpeg: $(ROOT)/tests/unit/test_emu_mjpeg.c \
		$(EMU_MJPEG_SRCS) $(EMU_SCENE_SRCS) $(JPEG_DECODE_SRCS) \
		$(EMU_MODEL_HDRS) $(JPEG_DECODE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -I$(ISOCAM_CHECK_DIR) -o $@ $(filter %.c,$^) \
		-lcmocka $(EMU_MJPEG_LIBS) -lm

# The YUV4MPEG2 reader, a user's video as the camera's source.
$(BUILD)/tests/test_emu_y4m: $(ROOT)/tests/unit/test_emu_y4m.c \
		$(EMU_Y4M_SRCS) $(EMU_MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(EMU_UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

UNIT_TESTS += $(BUILD)/tests/test_emu_y4m $(BUILD)/tests/test_emu_isp
UNIT_TESTS += $(BUILD)/tests/test_emu_sensor $(BUILD)/tests/test_emu_scene \
	$(BUILD)/tests/test_emu_stream $(BUILD)/tests/test_emu_mjpeg
