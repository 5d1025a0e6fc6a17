#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: runs after warn.sh in the same boot and
# must PASS: a splat is charged to the script that caused it only. It also
# checks the environment and results share the harness promises.
. "$ISOCAM_ROOT/tests/vm/lib.sh"
assert_eq "$(pwd)" "$ISOCAM_ROOT" "cwd"
assert_eq "$ISOCAM_BUILD" "$ISOCAM_ROOT/build" "ISOCAM_BUILD"
assert_eq "$ISOCAM_KVER" "$(uname -r)" "ISOCAM_KVER"
assert_eq "$(id -u)" 0 "uid"
ip -o addr show lo | grep '127.0.0.1' >/dev/null || fail "lo has no 127.0.0.1"
echo "from the guest" >"$RESULTS/proof.txt"
log "clean: ok"
