# The camera's JPEG frames decoded, for isocam-check and the unit tests.
JPEG_DECODE_SRCS := $(ROOT)/tests/tools/jpeg_decode.c
JPEG_DECODE_HDRS := $(ROOT)/tests/tools/jpeg_decode.h

# isocam-check: verifies captured raw video against the emulator's
# reference renderer (scene.c), used by the VM scenarios and the demo.
ISOCAM_CHECK := $(BUILD)/isocam-check

$(ISOCAM_CHECK): $(ROOT)/tests/tools/isocam-check.c $(EMU_SCENE_SRCS) \
		$(EMU_MJPEG_SRCS) $(JPEG_DECODE_SRCS) $(EMU_MODEL_HDRS) \
		$(JPEG_DECODE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(EMU_INCLUDES) -I$(ROOT)/tests/tools \
		-o $@ $(filter %.c,$^) $(EMU_MJPEG_LIBS) -lm

USER_BINS += $(ISOCAM_CHECK)

# The checker's own test: it must pass good captures and catch every
# kind of bad one. It runs the built binary, hence the dependency.
$(BUILD)/tests/test_isocam_check: $(ROOT)/tests/tools/test_isocam_check.c \
		$(EMU_SCENE_SRCS) $(EMU_MJPEG_SRCS) $(EMU_MODEL_HDRS) \
		$(ISOCAM_CHECK)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(EMU_INCLUDES) \
		-DISOCAM_CHECK='"$(ISOCAM_CHECK)"' -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MJPEG_LIBS)

UNIT_TESTS += $(BUILD)/tests/test_isocam_check

# isocam-stream: streams and says how the stream ended (frames, error
# frames, a DQBUF error or a stall), for the fault and hostile tests.
ISOCAM_STREAM := $(BUILD)/isocam-stream

$(ISOCAM_STREAM): $(ROOT)/tests/tools/isocam-stream.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $<

USER_BINS += $(ISOCAM_STREAM)
