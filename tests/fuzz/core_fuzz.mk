# libFuzzer target for the frame assembler; seeds in corpus/fuzz_assembler/.
FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_assembler

$(BUILD)/fuzz/fuzz_assembler: $(ROOT)/tests/fuzz/fuzz_assembler.c \
		$(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -I$(ROOT)/core -o $@ $< $(CORE_SRCS)

# libFuzzer target for the checks of completed iso packets.
FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_iso_packet

$(BUILD)/fuzz/fuzz_iso_packet: $(ROOT)/tests/fuzz/fuzz_iso_packet.c \
		$(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -I$(ROOT)/core -o $@ $< $(CORE_SRCS)
