#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault matrix's rows where the isochronous and bulk replies lie.
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

# These modes change only what streams: armed at probe, idle, during
# control or i2c traffic they act alike (the next stream is the first to
# see them), so they run at probe and mid-stream; unlink-never also while
# controls and i2c are busy. A stream that cannot deliver ends in eio;
# gone: USB/IP's vhci drops a connection whose replies break its own
# rules (it checks lengths and counts), which unplugs the camera.
ALL=probe,idle,stream,ctrl,i2c
ISO=probe,stream

# Isochronous replies
matrix_row iso-offset-wild   --hostile=iso-offset-wild   $ISO eio,gone
matrix_row iso-actual-over   --hostile=iso-actual-over   $ISO eio,gone
matrix_row iso-len-over      --hostile=iso-len-over      $ISO eio,gone
matrix_row iso-np-zero       --hostile=iso-np-zero       $ISO eio,gone
matrix_row iso-np-more       --hostile=iso-np-more       $ISO eio,gone
matrix_row iso-pkt-status    --hostile=iso-pkt-status    $ISO eio
matrix_row iso-urb-status    --hostile=iso-urb-status    $ISO eio
# Replies 2 s late (HOSTILE_ISO_LATE_NS): the default watchdog sees frames.
matrix_row iso-late          --hostile=iso-late          $ISO good,eio 3000
matrix_row iso-never         --hostile=iso-never         $ISO eio
matrix_row unlink-never      --hostile=unlink-never      $ALL good
# Bulk replies (the bulk personality): 16 failed transfers in a row stop
# the resubmits, and the watchdog ends the stream
matrix_row bulk-urb-status   "--transport=bulk --hostile=bulk-urb-status" $ISO eio

matrix_main
