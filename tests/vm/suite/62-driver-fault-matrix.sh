#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Issue 10: the fault matrix. Every hostile mode of isocam-emu and every
# --fault kind, in every state it can start in, against the driver; the
# rules a cell must keep and the outcome words are in tests/vm/fault-
# matrix.sh. The table lands in $RESULTS/matrix.txt.
# MATRIX_ONLY="name ..." (environment; run-vm.sh passes it on) runs only
# those rows.
# Some 100 cells of a few seconds (guest time) each under TCG:
# vm-timeout: 3600
. "$ISOCAM_ROOT/tests/vm/lib.sh"
. "$ISOCAM_ROOT/tests/vm/lib-camera.sh"
. "$ISOCAM_ROOT/tests/vm/lib-driver.sh"
. "$ISOCAM_ROOT/tests/vm/fault-matrix.sh"

require_cmd usbip v4l2-ctl i2ctransfer timeout
[ -x "$MATRIX_STREAM" ] || fail "$MATRIX_STREAM is not built (make)"

ALL=probe,idle,stream,ctrl,i2c
# Isochronous and payload modes change only what streams: armed at probe,
# idle, during control or i2c traffic they act alike (the next stream is
# the first to see them), so they run at probe and mid-stream.
ISO=probe,stream
# Descriptors are read once, at enumeration.
DESC=probe
# A stream that cannot deliver ends in eio; one that can delivers what it
# can (mid-stream, frames good until the lie starts: mixed). gone: USB/IP's vhci drops a connection whose replies break its own
# rules (it checks lengths and counts), which unplugs the camera.

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
# Control requests
matrix_row ctrl-stall        --hostile=ctrl-stall        $ALL refused,good,son
matrix_row ctrl-short        --hostile=ctrl-short        $ALL refused,good,son
matrix_row ctrl-long         --hostile=ctrl-long         $ALL refused,good,son,gone,core
matrix_row ctrl-never        --hostile=ctrl-never        $ALL refused,good,son
matrix_row ctrl-never-unlink --hostile=ctrl-never-unlink $ALL refused,good,son,gone
matrix_row i2c-nak-stream    --hostile=i2c-nak-stream    $ALL son,good
matrix_row i2c-garbage       --hostile=i2c-garbage       $ALL refused,good,son
# The emulator's --fault kinds (always from the plug on)
matrix_row fault-drop        --fault=drop=1/20           probe good,mixed,errfr
matrix_row fault-corrupt     --fault=corrupt=1/50        probe good,mixed,errfr
matrix_row fault-err         --fault=err=1/30            probe good,mixed,errfr
matrix_row fault-short       --fault=short=1/5           probe good,mixed
matrix_row fault-long        --fault=long=1/5            probe good,mixed
matrix_row fault-nak         --fault=nak=1/3             probe refused,good,son
matrix_row fault-stall       --fault=stall=1/3           probe refused,good,son
matrix_row fault-vanish      --fault=vanish=after:5      probe gone,good,core,refused

modprobe i2c-dev
driver_setup
stop_emu

# shellcheck disable=SC2086
matrix_run ${MATRIX_ONLY:-}

step "clean rmmod"
unload_isocam_modules
modprobe -r vhci-hcd
log "62-driver-fault-matrix: ok"
