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
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
. "$ISOCAM_ROOT/tests/vm/lib/camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib/driver.sh"
. "$ISOCAM_ROOT/tests/vm/lib/fault-matrix.sh"

ALL=probe,idle,stream,ctrl,i2c

# Control requests
matrix_row ctrl-stall        --hostile=ctrl-stall        $ALL refused,good,son
matrix_row ctrl-short        --hostile=ctrl-short        $ALL refused,good,son
matrix_row ctrl-long         --hostile=ctrl-long         $ALL refused,good,son,gone,core
matrix_row ctrl-never        --hostile=ctrl-never        $ALL refused,good,son
matrix_row ctrl-never-unlink --hostile=ctrl-never-unlink $ALL refused,good,son,gone
# The standard requests that start and stop a stream: the USB core waits
# 5 s for one, after which isocam gives up on the bridge (STREAMON fails,
# controls fail) rather than wait again at every STREAMOFF and close.
matrix_row std-never         --hostile=std-never         $ALL refused,good,son
matrix_row std-never-bulk    "--transport=bulk --hostile=std-never" $ALL refused,good,son
# When the unlink is not answered either, no driver can bound the wait
# (usb_kill_urb() waits for vhci_hcd to give the URB back): the debug
# kernel's vhci_hcd drops such a peer (tests/vm/kernels/patches/0003).
if modinfo -p vhci_hcd 2>/dev/null | grep -q '^unlink_timeout_ms:'; then
	matrix_row std-never-unlink --hostile=std-never-unlink  $ALL refused,core,good,son,gone
else
	log "std-never-unlink not run: this kernel's vhci_hcd waits for an unlink's answer forever (no unlink_timeout_ms)"
fi
matrix_row i2c-nak-stream    --hostile=i2c-nak-stream    $ALL son,good
matrix_row i2c-garbage       --hostile=i2c-garbage       $ALL refused,good,son

matrix_main
