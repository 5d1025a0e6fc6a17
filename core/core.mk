# core/: bus-agnostic logic (payload parsing and frame assembly, format and
# bandwidth math, checks of completed iso packets and bulk transfers, device
# clock recovery). The same sources build
# into isocam.ko (usb/Kbuild) and, listed here, into userspace: unit
# tests, fuzzers and test tools link $(CORE_SRCS) and add -I$(ROOT)/core.
# Their rules live in tests/unit/core_unit.mk and tests/fuzz/core_fuzz.mk.
CORE_SRCS := $(ROOT)/core/isocam_asm.c $(ROOT)/core/isocam_bulk_xfer.c \
	$(ROOT)/core/isocam_clock.c $(ROOT)/core/isocam_format.c \
	$(ROOT)/core/isocam_iso_packet.c
CORE_HDRS := $(ROOT)/core/isocam_asm.h $(ROOT)/core/isocam_bulk_xfer.h \
	$(ROOT)/core/isocam_clock.h $(ROOT)/core/isocam_format.h \
	$(ROOT)/core/isocam_iso_packet.h \
	$(ROOT)/core/isocam_compat.h $(wildcard $(ROOT)/include/isocam/*.h)

# Kbuild compiles core/ from usb/Kbuild as ../core/*.o, and its clean
# does not reach outside usb/: remove those objects here.
.PHONY: clean-core
clean: clean-core
clean-core:
	rm -f $(ROOT)/core/*.o $(ROOT)/core/.*.o.cmd $(ROOT)/core/*.o.d
