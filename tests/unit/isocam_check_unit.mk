# isocam-check's own test: it must pass good captures and catch every
# kind of bad one. It runs the built binary, hence the dependency.
$(BUILD)/tests/test_isocam_check: $(ROOT)/tests/unit/test_isocam_check.c \
		$(EMU_SCENE_SRCS) $(EMU_MJPEG_SRCS) $(EMU_MODEL_HDRS) \
		$(ISOCAM_CHECK)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(EMU_INCLUDES) \
		-DISOCAM_CHECK='"$(ISOCAM_CHECK)"' -o $@ $(filter %.c,$^) -lcmocka \
		$(EMU_MJPEG_LIBS)

UNIT_TESTS += $(BUILD)/tests/test_isocam_check
