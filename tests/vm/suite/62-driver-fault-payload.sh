#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows where the payload headers lie.
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

# Payload modes change only what streams (62-driver-fault-transport says
# why): at probe and mid-stream. A stream that cannot deliver ends in eio;
# one that can delivers what it can (mid-stream, frames good until the
# lie starts: mixed).
ISO=probe,stream

# Payload headers
matrix_row ph-len0           --hostile=ph-len0           $ISO eio
matrix_row ph-len1           --hostile=ph-len1           $ISO eio
matrix_row ph-len-over       --hostile=ph-len-over       $ISO eio
matrix_row fid-stuck         --hostile=fid-stuck         $ISO eio,mixed
matrix_row fid-flip          --hostile=fid-flip          $ISO errfr,mixed,eio
matrix_row eof-never         --hostile=eof-never         $ISO good,mixed,errfr
matrix_row eof-always        --hostile=eof-always        $ISO errfr,mixed,eio
matrix_row frame-10x         --hostile=frame-10x         $ISO errfr,mixed
matrix_row ph-err            --hostile=ph-err            $ISO errfr,mixed

matrix_main
