#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows where the descriptors lie.
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

# Descriptors are read once, at enumeration.
DESC=probe

# Descriptors
matrix_row desc-no-iso       --hostile=desc-no-iso       $DESC refused
matrix_row desc-maxp-zero    --hostile=desc-maxp-zero    $DESC refused
matrix_row desc-maxp-huge    --hostile=desc-maxp-huge    $DESC refused,good,core
matrix_row desc-bulk         --hostile=desc-bulk         $DESC refused
matrix_row desc-out          --hostile=desc-out          $DESC refused
matrix_row desc-no-alt0      --hostile=desc-no-alt0      $DESC refused,core
matrix_row desc-truncated    --hostile=desc-truncated    $DESC refused,core,good
matrix_row desc-100-alts     --hostile=desc-100-alts     $DESC good
matrix_row desc-dup-alts     --hostile=desc-dup-alts     $DESC good,refused

matrix_main
