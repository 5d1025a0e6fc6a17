#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows where control requests, and the i2c bus
# behind them, lie: in every state, since any of them may be mid-request.
# Each behaviour starts in every state its row names, against the driver;
# the rules a cell keeps and the outcome words are in tests/vm/fault-
# matrix.sh. The table lands in $RESULTS/matrix.txt. MATRIX_ONLY="name
# ..." (run-vm.sh passes it on) runs only those rows, of every
# 62-driver-fault-* script.
# vm-timeout: 900
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"
. "$ISOCAM_ROOT/tests/vm/fault-matrix.sh"

ALL=probe,idle,stream,ctrl,i2c

# Control requests
matrix_row ctrl-stall        --hostile=ctrl-stall        $ALL refused,good,son
matrix_row ctrl-short        --hostile=ctrl-short        $ALL refused,good,son
matrix_row ctrl-long         --hostile=ctrl-long         $ALL refused,good,son,gone,core
matrix_row ctrl-never        --hostile=ctrl-never        $ALL refused,good,son
matrix_row ctrl-never-unlink --hostile=ctrl-never-unlink $ALL refused,good,son,gone
matrix_row i2c-nak-stream    --hostile=i2c-nak-stream    $ALL son,good
matrix_row i2c-garbage       --hostile=i2c-garbage       $ALL refused,good,son

matrix_main
