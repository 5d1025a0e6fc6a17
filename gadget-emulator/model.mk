# The camera's insides: sensor register file, scene, video packetizer.
# Sources listed here are linked into isocam-emu and the test tools.
EMU_MODEL_SRCS :=
