#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: runs after warn.sh in the same boot and
# must PASS: a splat is charged to the script that caused it only. It also
# checks the environment and results share the harness promises, and that
# /tmp holds neither what warn.sh left nor the host's files.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"
assert_eq "$(pwd)" "$ISOCAM_ROOT" "cwd"
assert_eq "$ISOCAM_BUILD" "$ISOCAM_ROOT/build" "ISOCAM_BUILD"
assert_eq "$ISOCAM_KVER" "$(uname -r)" "ISOCAM_KVER"
assert_eq "$(id -u)" 0 "uid"
ip -o addr show lo | grep '127.0.0.1' >/dev/null || fail "lo has no 127.0.0.1"
# kmsg_after_mark starts at the line that ends with the marker, never at a
# line one character shorter than the marker (an awk index() of 0 once
# matched those, and a cell of the fault matrix read an older cell's log).
m="isocam-matrix: ctrl-never-unlink/idle"
short=$(printf '%*s' $((${#m} - 1)) '' | tr ' ' x)
got=$(printf '%s\n' "$short" "[  1.000000] isocam-test: other" "[  2.000000] isocam-test: $m" after |
	kmsg_after_mark "$m" | tr '\n' '|')
assert_eq "$got" "[  2.000000] isocam-test: $m|after|" "kmsg_after_mark"
kmsg_mark "selftest mark"
echo "after the mark" >/dev/kmsg
got=$(dmesg | kmsg_after_mark "selftest mark" | sed 's/^\[[ 0-9.]*\] //' | tr '\n' '|')
assert_eq "$got" "isocam-test: selftest mark|after the mark|" "kmsg_after_mark on dmesg"
[ ! -e /tmp/selftest-left ] || fail "what warn.sh left in /tmp is still there"
# selftest.sh put this in the host's /tmp; the guest has its own (unless
# the tree itself is under /tmp).
case "$ISOCAM_ROOT/" in
/tmp/*) ;;
*) [ ! -e /tmp/isocam-selftest-host ] || fail "the host's /tmp shows in the guest's" ;;
esac
echo "from the guest" >"$RESULTS/proof.txt"
log "clean: ok"
