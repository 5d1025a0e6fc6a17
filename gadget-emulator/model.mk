# The camera's insides, one folder a layer, each using only those below:
#   util/     logging, buffer growth
#   picture/  the sensor's pixel processing (isp), the scene (the reference
#             renderer the test tools share) and
#             the bridge's JPEG encoder (libjpeg-turbo's libjpeg API)
#   faults/   rate-driven faults and hostile modes (what the camera lies
#             about, in device terms)
#   device/   the bridge chip: descriptors, vendor requests, i2c bus, the
#             IC1280 sensor's registers, the video packetizer; and the
#             camera, what a transport serves: bridge and faults, built
#             from one config
# Transports (usbip/, ffs/) are emu.mk's. Headers are included by name;
# EMU_INCLUDES puts every layer on the path.
EMU_DIR := $(ROOT)/gadget-emulator
EMU_INCLUDES := -I$(EMU_DIR)/util -I$(EMU_DIR)/picture -I$(EMU_DIR)/faults \
	-I$(EMU_DIR)/device -I$(EMU_DIR)/usbip -I$(EMU_DIR)/ffs

EMU_UTIL_SRCS := $(EMU_DIR)/util/log.c
EMU_SCENE_SRCS := $(EMU_DIR)/picture/scene.c $(EMU_DIR)/picture/isp.c
EMU_MJPEG_SRCS := $(EMU_DIR)/picture/mjpeg.c
# A user's video (YUV4MPEG2), not yet a source of the camera's own.
EMU_Y4M_SRCS := $(EMU_DIR)/picture/y4m.c
EMU_MJPEG_LIBS := -ljpeg
EMU_FAULT_SRCS := $(EMU_DIR)/faults/fault.c
# hostile.c: the packetizer's hostile payload modes live there (it needs
# nothing else), so every user of the packetizer links it.
EMU_HOSTILE_SRCS := $(EMU_DIR)/faults/hostile.c
# The sensor and the packetizer: what the test tools and the model's
# unit tests link.
EMU_MODEL_SRCS := $(EMU_DIR)/device/ic1280_model.c \
	$(EMU_SCENE_SRCS) $(EMU_MJPEG_SRCS) \
	$(EMU_DIR)/device/video_stream.c $(EMU_HOSTILE_SRCS)
EMU_MODEL_LIBS := $(EMU_MJPEG_LIBS)
# The rest of the device: descriptors, the bridge, its i2c bus, and the
# camera built around them.
EMU_DEVICE_SRCS := $(EMU_DIR)/device/usb_descriptors.c \
	$(EMU_DIR)/device/i2c_bus.c $(EMU_DIR)/device/bridge.c \
	$(EMU_DIR)/device/camera.c
EMU_MODEL_HDRS := $(wildcard $(EMU_DIR)/*/*.h) \
	$(wildcard $(ROOT)/include/isocam/*.h)
