# isocam-emu: the emulated camera served over USB/IP.
include $(ROOT)/gadget-emulator/model.mk
EMU_BIN := $(BUILD)/isocam-emu
