#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug-kernel self-test, guest side: load a module that leaks 256 bytes
# and exit 0. The harness's kmemleak scan must find it and FAIL this
# script (tests/vm/selftest/selftest-debug.sh checks that).
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
ko=$ISOCAM_BUILD/vm/badmods/isocam_leaktest.ko
assert_file "$ko"
insmod "$ko"
assert_module_loaded isocam_leaktest
log "isocam_leaktest loaded (it stays); exiting 0 on purpose"
exit 0
