#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test, guest side: a plain failing script; the harness must
# report its exit status.
echo "exiting 3 on purpose"
exit 3
