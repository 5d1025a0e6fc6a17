# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the harness self-tests (tests/vm/selftest*.sh), on the host.
# Set ME (the line prefix) first; bad ends up 1 if any check failed.
# shellcheck disable=SC2034 # read by the script that sources this
bad=0
check() { # check DESCRIPTION COMMAND...
	if "${@:2}"; then
		echo "$ME: ok: $1"
	else
		echo "$ME: NOT OK: $1"
		bad=1
	fi
}
