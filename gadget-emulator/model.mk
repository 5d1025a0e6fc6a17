# The camera's insides: sensor register file, scene, video packetizer and
# its JPEG encoder. Sources listed here are linked into isocam-emu and the
# test tools, with $(EMU_MODEL_LIBS).
# scene.c alone is the reference renderer the test tools need (it has no
# dependency on the rest), hence its own variable; mjpeg.c (the bridge's
# JPEG encoder, on libjpeg-turbo's libjpeg API) likewise.
EMU_SCENE_SRCS := $(ROOT)/gadget-emulator/scene.c
EMU_MJPEG_SRCS := $(ROOT)/gadget-emulator/mjpeg.c
EMU_MJPEG_LIBS := -ljpeg
# hostile.c: the packetizer's hostile payload modes live there (it needs
# nothing else), so every user of the packetizer links it.
EMU_MODEL_SRCS := $(ROOT)/gadget-emulator/ic1280_model.c \
	$(EMU_SCENE_SRCS) $(EMU_MJPEG_SRCS) \
	$(ROOT)/gadget-emulator/video_stream.c \
	$(ROOT)/gadget-emulator/hostile.c
EMU_MODEL_LIBS := $(EMU_MJPEG_LIBS)
EMU_MODEL_HDRS := $(wildcard $(ROOT)/gadget-emulator/*.h) \
	$(wildcard $(ROOT)/include/isocam/*.h)
