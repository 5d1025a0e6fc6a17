# isocam-stream: streams and says how the stream ended (frames, error
# frames, a DQBUF error or a stall), for the fault and hostile tests.
ISOCAM_STREAM := $(BUILD)/isocam-stream

$(ISOCAM_STREAM): $(ROOT)/tests/tools/isocam-stream.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $<

USER_BINS += $(ISOCAM_STREAM)
