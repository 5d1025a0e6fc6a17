# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/check.sh and scripts/check-debug.sh: the tally they
# both keep and print as `N passed, N failed`.
passed=0
failed=0
failures=()
tails=()
t0=$(date +%s)

ok() { passed=$((passed + ${2:-1})); }
bad() { failed=$((failed + ${2:-1})); failures+=("$1"); }
# bad_log NAME LOG: NAME failed; the summary shows LOG's last lines, because
# the summary is what a CI page keeps when it cuts a long run's output.
bad_log() { bad "$1 (see $2)"; tails+=("$2"); }
section() { printf '\n==== %s  [+%ss]\n' "$*" "$(($(date +%s) - t0))"; }

# vm_tally SUMMARY STATUS: count run-vm.sh's PASS/FAIL/SKIP lines.
vm_tally() {
	local line
	if [ -f "$1" ]; then
		ok "" "$(grep -c '^PASS ' "$1")"
		while IFS= read -r line; do
			bad "vm ${line#* }"
		done < <(grep -E '^(FAIL|SKIP) ' "$1")
		if [ "$2" != 0 ] && ! grep -qE '^(FAIL|SKIP) ' "$1"; then
			bad "vm suite (run-vm.sh exit status $2)"
		fi
	else
		bad "vm suite (run-vm.sh exit status $2, no summary)"
	fi
}

# slowest OUT: the five slowest scripts of a run-shards.sh run, kept for
# the closing lines (guest seconds, and what they cost in wall seconds).
slowest_lines=()
slowest() {
	local line
	[ -f "$1/slowest.txt" ] || return 0
	while IFS= read -r line; do slowest_lines+=("$line"); done <"$1/slowest.txt"
}

# print_verdict LOGS: the closing lines; true when all passed.
print_verdict() {
	local f
	section "summary ($(($(date +%s) - t0))s, logs in $1)"
	for f in "${tails[@]}"; do
		echo "---- the last 25 lines of $f"
		tail -n 25 "$f" 2>/dev/null || echo "(no log)"
	done
	[ ${#slowest_lines[@]} = 0 ] || echo "the slowest VM scripts:"
	for f in "${slowest_lines[@]}"; do echo "  $f"; done
	for f in "${failures[@]}"; do echo "failed: $f"; done
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
