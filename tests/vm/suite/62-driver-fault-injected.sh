#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows of the emulator's --fault kinds: drop,
# corrupt, fail, shorten or lengthen replies at a rate, or vanish.
# Each behaviour starts in every state its row names, against the driver;
# the rules a cell keeps and the outcome words are in tests/vm/fault-
# matrix.sh. The table lands in $RESULTS/matrix.txt. MATRIX_ONLY="name
# ..." (run-vm.sh passes it on) runs only those rows, of every
# 62-driver-fault-* script.
# vm-timeout: 600
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/fault-matrix.sh"

# The emulator's --fault kinds (always from the plug on)
matrix_row fault-drop        --fault=drop=1/20           probe good,mixed,errfr
matrix_row fault-corrupt     --fault=corrupt=1/50        probe good,mixed,errfr
matrix_row fault-err         --fault=err=1/30            probe good,mixed,errfr
matrix_row fault-short       --fault=short=1/5           probe good,mixed
matrix_row fault-long        --fault=long=1/5            probe good,mixed
matrix_row fault-nak         --fault=nak=1/3             probe refused,good,son
matrix_row fault-stall       --fault=stall=1/3           probe refused,good,son
matrix_row fault-vanish      --fault=vanish=after:5      probe gone,good,core,refused

matrix_main
