#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In short, 60 cycles of make stress's start/stop loop
# (tests/vm/stress/start-stop.sh): streams started and stopped with URBs
# in flight, STREAMON failing halfway, one unplug during a stop; vhci
# never drops the connection and nothing is lost on the bus.
STRESS_CYCLES=60 exec bash "$ISOCAM_ROOT/tests/vm/stress/start-stop.sh"
