# The fake USB/IP client (vhci's side of a connection) that the C unit
# tests, the fuzzers and the benches share; it links with EMU_SRCS.
TEST_LIB_DIR := $(ROOT)/tests/lib
USBIP_CLIENT_SRCS := $(TEST_LIB_DIR)/usbip_client.c
USBIP_CLIENT_HDRS := $(TEST_LIB_DIR)/usbip_client.h
USBIP_CLIENT_INCLUDES := -I$(TEST_LIB_DIR)
