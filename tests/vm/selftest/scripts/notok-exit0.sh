#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: a failed subtest in a script that then
# exits 0 anyway (no subtests_done): the harness must still fail it.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"

fails() { fail "on purpose"; }
subtest "fails quietly" fails
exit 0
