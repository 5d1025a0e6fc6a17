# libFuzzer target for isocam-emu's USB/IP decoder; seed inputs (real
# command streams: control, iso submit, unlink, import) are in
# corpus/fuzz_usbip/.
FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_usbip

$(BUILD)/fuzz/fuzz_usbip: $(ROOT)/tests/fuzz/fuzz_usbip.c \
		$(EMU_DIR)/usbip/usbip_proto.c \
		$(EMU_DIR)/usbip/usbip_proto.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(EMU_INCLUDES) -o $@ \
		$(filter %.c,$^)

# Stateful target: the whole emulated camera (server, session, bridge,
# sensor model, faults) behind tests/lib's client connection, driven by
# commands the input spells out (fuzz_session.h). Links its own quiet emu_log instead of
# log.c. Seeds in corpus/fuzz_session/ are written by gen_session_corpus:
# `make fuzz-session-corpus` rewrites them.
FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_session

$(BUILD)/fuzz/fuzz_session: $(ROOT)/tests/fuzz/fuzz_session.c \
		$(ROOT)/tests/fuzz/fuzz_session.h $(USBIP_CLIENT_SRCS) \
		$(EMU_SRCS) $(USBIP_CLIENT_HDRS) $(EMU_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -pthread $(EMU_INCLUDES) \
		$(USBIP_CLIENT_INCLUDES) -o $@ \
		$(filter-out %/log.c,$(filter %.c,$^)) $(EMU_MODEL_LIBS)

$(BUILD)/tests/gen_session_corpus: $(ROOT)/tests/fuzz/gen_session_corpus.c \
		$(ROOT)/tests/fuzz/fuzz_session.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $<

.PHONY: fuzz-session-corpus
fuzz-session-corpus: $(BUILD)/tests/gen_session_corpus
	rm -rf $(ROOT)/tests/fuzz/corpus/fuzz_session
	mkdir -p $(ROOT)/tests/fuzz/corpus/fuzz_session
	$< $(ROOT)/tests/fuzz/corpus/fuzz_session
