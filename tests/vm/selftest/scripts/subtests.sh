#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: KTAP subtests (lib/base.sh). The first fails,
# the second must still run and pass; the script then fails.
. "$ISOCAM_ROOT/tests/vm/lib/base.sh"

fails() { fail "on purpose"; }
passes() { echo "the second subtest ran"; }
subtest "first fails" fails
subtest "second passes" passes
subtests_done
