# SPDX-License-Identifier: GPL-2.0
# isocam: one make for the kernel modules, the emulator, the tools and the
# tests. Each area adds its own rules through the *.mk fragment in its
# folder; this file holds only what they share.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(ROOT)/build

# The kernel, by series (scripts/find-kernel.sh): KERNEL=6.1 (the
# default: Debian 12's own), 6.12 (Debian 13's series, installed by make
# deps) or 7.2 (built here: make kernel KERNEL=7.2). Every target that
# builds or boots follows it: make check KERNEL=6.12. A user on a real
# host builds for the running kernel with: make KVER=$(uname -r)
KERNEL ?= 6.1
KVER ?= $(shell KERNEL=$(KERNEL) $(ROOT)/scripts/find-kernel.sh 2>/dev/null)
KDIR ?= $(or $(shell [ -d /lib/modules/$(KVER)/build ] && echo /lib/modules/$(KVER)/build),$(shell KERNEL=$(KERNEL) $(ROOT)/scripts/find-kernel.sh --kdir 2>/dev/null))
export KERNEL KVER KDIR

CC := gcc
CLANG := clang
USER_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE \
	-I$(ROOT)/include -pthread
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
TEST_CFLAGS := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE \
	-I$(ROOT)/include -pthread $(SAN_CFLAGS)
FUZZ_CFLAGS := -g -O1 -D_GNU_SOURCE -I$(ROOT)/include \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

# Filled in by the fragments:
USER_BINS :=		# userspace programs built by 'make'
UNIT_TESTS :=		# cmocka test binaries, run by 'make check'
FUZZ_TARGETS :=		# libFuzzer binaries, run briefly by 'make check'
BENCHES :=		# benchmark programs, run by 'make bench'

.PHONY: all modules userspace kernel check check-run check-debug check-debug-run demo-run unit fuzz \
	vmtest vmtest-run lifetime bench demo deps lint soak pause-soak pause-soak-cycles stress check-under-load \
	install uninstall install-dkms \
	clean help
.DEFAULT_GOAL := all

all: modules userspace

help:
	@echo "make deps      install every Debian package needed (root)"
	@echo "make kernel    build the KERNEL= series if it is built here (7.2, debug); cached"
	@echo "make           build the modules (KDIR=...) and userspace"
	@echo "make demo      boot the VM, plug the camera, stream, save out/ (GADGET=1: as a USB gadget)"
	@echo "make check     unit tests, fuzzers and the VM suite"
	@echo "make vmtest    VM suite scripts alone on KERNEL= (VM_SCRIPTS=\"name ...\"; default all)"
	@echo "make lifetime  the unplug and handle-lifetime scripts alone on KERNEL="
	@echo "make check-debug  the VM suite on a KASAN/lockdep/kmemleak kernel (built once, cached)"
	@echo "make lint      checkpatch --strict and sparse on kernel code"
	@echo "make bench     benchmarks (numbers, no assertions)"
	@echo "make soak      1000 unplugs while streaming in the VM (SOAK_CYCLES=N)"
	@echo "make pause-soak  a capture paused by 100 sleeps and 100 USB resets in the VM (PAUSE_CYCLES=N)"
	@echo "make stress    1000 stream start/stop cycles in the VM beside a host CPU hog (STRESS_CYCLES=N)"
	@echo "make check-under-load  make check beside a host CPU hog (LOAD_CPUS, LOAD_PCT)"
	@echo "make install   modules for KVER (depmod), tools, man pages, systemd unit (PREFIX, DESTDIR)"
	@echo "make uninstall what make install put there"
	@echo "make install-dkms  module sources into /usr/src for DKMS, then dkms add"

deps:
	$(ROOT)/scripts/deps.sh

# Debian's kernels come with make deps; 7.2 and the debug kernel are built
# once (about 20 minutes on 2 cores) and cached in /var/cache/isocam/.
kernel:
	@case "$(KERNEL)" in 7.2|debug) $(ROOT)/tests/vm/kernels/build.sh $(KERNEL) >/dev/null ;; esac

modules:
	@test -f "$(KDIR)/Makefile" || { echo "no kernel build tree at KDIR=$(KDIR); run 'make deps' or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(ROOT) modules

include $(ROOT)/core/core.mk
include $(ROOT)/gadget-emulator/emu.mk
include $(ROOT)/tools/isocam-check/isocam-check.mk
include $(ROOT)/tests/tests.mk

userspace: $(USER_BINS)

unit: $(UNIT_TESTS)
fuzz: $(FUZZ_TARGETS)

# check and demo first install what is missing, then start a fresh make so
# that KVER/KDIR see a kernel installed a moment ago.
check: deps kernel
	$(MAKE) -C $(ROOT) check-run

check-run: all unit fuzz
	UNIT_TESTS="$(UNIT_TESTS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" \
		$(ROOT)/scripts/check.sh

# Suite scripts alone, on the KERNEL= series (scripts/vmtest.sh).
vmtest: deps kernel
	$(MAKE) -C $(ROOT) vmtest-run

vmtest-run: all
	$(ROOT)/scripts/vmtest.sh

# The lifetime scripts alone (unplug in every state, every subset of
# handle kinds held across it, the media graph's nodes) on KERNEL=; on
# the debug kernel: HANDLE_SUBSETS=all make check-debug
# DEBUG_SCRIPTS="$(LIFETIME_SCRIPTS)". HANDLE_SEED= repeats a run's
# close orders.
LIFETIME_SCRIPTS := 60-driver-unplug 60-driver-unplug-stream \
	61-driver-unplug-states 61-driver-unplug-handles 65-driver-media
lifetime:
	HANDLE_SUBSETS=all VM_TIMEOUT=$${VM_TIMEOUT:-3600} \
		$(MAKE) -C $(ROOT) vmtest VM_SCRIPTS="$(LIFETIME_SCRIPTS)"

# The VM suite on the debug kernel (scripts/check-debug.sh): it builds
# that kernel once into /var/cache/isocam/ and the modules for it into
# build/debug/; `make check` keeps using Debian's kernel.
check-debug: deps
	$(MAKE) -C $(ROOT) check-debug-run

check-debug-run: userspace
	$(ROOT)/scripts/check-debug.sh

# Host benchmarks, then those that need the VM (one boot, tests/bench/vm/),
# then the plot of timestamp spacing (build/bench/stamps.png).
# BENCH_TS_FRAMES: frames per timestamp run.
BENCH_TS_FRAMES ?= 900
# Frames per throughput run (MJPEG 1280x960 beside YUYV 640x480).
BENCH_TP_FRAMES ?= 300
# Frames per camera in the 1, 2, 4, 8 camera runs.
BENCH_CAM_FRAMES ?= 150
# Frames ffmpeg captures in the soak (5.6 minutes at 30 fps).
BENCH_SOAK_FRAMES ?= 10000
bench: deps kernel all $(BENCHES) $(BUILD)/bench/testusb
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done
	@mkdir -p $(BUILD)/bench
	echo $(BENCH_TS_FRAMES) >$(BUILD)/bench/ts-frames
	echo $(BENCH_TP_FRAMES) >$(BUILD)/bench/tp-frames
	echo $(BENCH_CAM_FRAMES) >$(BUILD)/bench/cam-frames
	echo $(BENCH_SOAK_FRAMES) >$(BUILD)/bench/soak-frames
	$(ROOT)/tests/vm/harness/run-vm.sh -q --out $(BUILD)/bench/vm \
		$(ROOT)/tests/bench/vm/timestamps.sh \
		$(ROOT)/tests/bench/vm/throughput.sh \
		$(ROOT)/tests/bench/vm/latency.sh \
		$(ROOT)/tests/bench/vm/transport.sh \
		$(ROOT)/tests/bench/vm/netem.sh \
		$(ROOT)/tests/bench/vm/cameras.sh \
		$(ROOT)/tests/bench/vm/soak.sh
	$(ROOT)/tests/bench/plot-stamps.sh $(BUILD)/bench/stamps.png \
		$(BUILD)/bench/vm/timestamps/results/stamps-Y.txt \
		$(BUILD)/bench/vm/timestamps/results/stamps-N.txt
	@grep -h '^bench:' $(BUILD)/bench/vm/*/output.log

demo: deps kernel
	$(MAKE) -C $(ROOT) demo-run

demo-run: all
	$(ROOT)/scripts/demo.sh

lint:
	$(ROOT)/scripts/lint.sh

# Installed like a driver (scripts/install.sh): the modules for KVER (then
# depmod), the tools, man pages and a systemd unit under PREFIX. DESTDIR
# stages into a directory instead (no depmod). install-dkms puts the
# module sources under /usr/src for DKMS (dkms.conf) and runs dkms add.
PREFIX ?= /usr/local
export PREFIX DESTDIR
install: modules userspace
	ROOT=$(ROOT) $(ROOT)/scripts/install.sh install

uninstall:
	ROOT=$(ROOT) $(ROOT)/scripts/install.sh uninstall

install-dkms:
	ROOT=$(ROOT) $(ROOT)/scripts/install.sh dkms

# Not part of check: about 40 minutes for the default 1000 cycles.
SOAK_CYCLES ?= 1000
soak: all
	@mkdir -p $(BUILD)/soak
	echo $(SOAK_CYCLES) >$(BUILD)/soak/cycles
	$(ROOT)/tests/vm/harness/run-vm.sh --out $(BUILD)/soak/vm \
		$(ROOT)/tests/vm/soak/unplug-streaming.sh

# Not part of check: one capture paused by a sleep and by a USB reset
# PAUSE_CYCLES times each (about 10 minutes for 100 on 6.1). On the
# debug kernel: make pause-soak-cycles, then
# DEBUG_SCRIPTS=tests/vm/soak/pause-streaming.sh VM_TIMEOUT=7200 make check-debug
PAUSE_CYCLES ?= 100
pause-soak-cycles:
	@mkdir -p $(BUILD)/soak
	echo $(PAUSE_CYCLES) >$(BUILD)/soak/pause-cycles
pause-soak: all pause-soak-cycles
	$(ROOT)/tests/vm/harness/run-vm.sh --out $(BUILD)/soak/pause-vm \
		$(ROOT)/tests/vm/soak/pause-streaming.sh

# Beside a CPU hog on the host (scripts/with-load.sh): the results must
# not depend on what else the machine is doing.
check-under-load: deps kernel
	$(ROOT)/scripts/with-load.sh $(MAKE) -C $(ROOT) check-run

# Not part of check (it runs 60 of these cycles): about an hour under load.
STRESS_CYCLES ?= 1000
stress: all
	@mkdir -p $(BUILD)/stress
	echo $(STRESS_CYCLES) >$(BUILD)/stress/cycles
	$(ROOT)/scripts/with-load.sh $(ROOT)/tests/vm/harness/run-vm.sh \
		--out $(BUILD)/stress/vm $(ROOT)/tests/vm/stress/start-stop.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(ROOT) clean
	rm -rf $(BUILD) out
