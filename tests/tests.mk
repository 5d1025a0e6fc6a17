# Every test area adds a fragment tests/<area>/<name>.mk. The shared
# helpers in tests/lib/ come first: the areas' rules name their files.
include $(sort $(wildcard $(ROOT)/tests/lib/*.mk))
include $(sort $(filter-out $(ROOT)/tests/lib/%,$(wildcard $(ROOT)/tests/*/*.mk)))
