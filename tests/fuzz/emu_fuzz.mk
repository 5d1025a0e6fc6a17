# libFuzzer target for isocam-emu's USB/IP decoder; seed inputs (real
# command streams: control, iso submit, unlink, import) are in
# corpus/fuzz_usbip/.
FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_usbip

$(BUILD)/fuzz/fuzz_usbip: $(ROOT)/tests/fuzz/fuzz_usbip.c \
		$(ROOT)/gadget-emulator/usbip_proto.c \
		$(ROOT)/gadget-emulator/usbip_proto.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -I$(ROOT)/gadget-emulator -o $@ \
		$(filter %.c,$^)
