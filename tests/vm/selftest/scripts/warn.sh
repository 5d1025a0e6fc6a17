#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: load a module that WARNs and exit 0. The
# harness must still FAIL this script (tests/vm/selftest/selftest.sh checks that).
# It also leaves a file in /tmp, which the harness must remove before
# clean.sh runs.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
ko=$ISOCAM_BUILD/vm/warnmod/warnmod.ko
assert_file "$ko"
insmod "$ko"
assert_module_loaded warnmod
rmmod warnmod
mkdir -p /tmp/selftest-left
echo "left by warn.sh" >/tmp/selftest-left/file
log "warnmod loaded and unloaded; exiting 0 on purpose"
exit 0
