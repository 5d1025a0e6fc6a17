# Host unit tests of core/ (cmocka, with ASan/UBSan from TEST_CFLAGS).
CORE_UNIT_TESTS := $(BUILD)/tests/test_core_assembler \
	$(BUILD)/tests/test_core_format $(BUILD)/tests/test_core_iso_packet \
	$(BUILD)/tests/test_core_clock $(BUILD)/tests/test_core_bulk
UNIT_TESTS += $(CORE_UNIT_TESTS)

$(CORE_UNIT_TESTS): $(BUILD)/tests/%: $(ROOT)/tests/unit/%.c $(CORE_SRCS) \
		$(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -I$(ROOT)/core -o $@ $< $(CORE_SRCS) -lcmocka -lm
