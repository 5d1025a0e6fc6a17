#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows of the host's own events: a USB reset and a
# system sleep of the camera's device, while idle, mid-stream, while
# another process writes controls and while one reads the sensor over
# /dev/i2c-N, over each transport. The stream goes on (a frame the pause
# cut short may be flagged ERROR), and the camera streams, takes a
# control and answers i2c after it; the rules a cell keeps and the
# outcome words are in tests/vm/lib/fault-matrix.sh. The table lands in
# $RESULTS/matrix.txt. MATRIX_ONLY="name ..." runs only those rows.
# vm-timeout: 600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/pause.sh"
. "$ISOCAM_ROOT/tests/vm/lib/fault-matrix.sh"

require_cmd usbreset
usb_sleep_setup

matrix_row reset-iso   "@reset"                  idle,stream,ctrl,i2c good,mixed
matrix_row reset-bulk  "@reset --transport=bulk" idle,stream,ctrl,i2c good,mixed
matrix_row sleep-iso   "@sleep"                  idle,stream,ctrl,i2c good,mixed
matrix_row sleep-bulk  "@sleep --transport=bulk" idle,stream,ctrl,i2c good,mixed

matrix_main
