#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debug-kernel self-test, guest side: load a module that reads freed
# memory and exit 0. KASAN must report it and the harness must FAIL this
# script (tests/vm/selftest/selftest-debug.sh checks that).
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
ko=$ISOCAM_BUILD/vm/badmods/isocam_uaftest.ko
assert_file "$ko"
insmod "$ko"
rmmod isocam_uaftest
log "isocam_uaftest loaded and unloaded; exiting 0 on purpose"
exit 0
