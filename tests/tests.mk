# Every test area adds a fragment tests/<area>/<name>.mk.
include $(sort $(wildcard $(ROOT)/tests/*/*.mk))
