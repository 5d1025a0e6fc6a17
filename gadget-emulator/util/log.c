// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void emu_log(const char *fmt, ...)
{
	char line[512];
	struct timespec ts;
	va_list ap;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(line, sizeof(line), "isocam-emu[%5lld.%03ld]: ",
		     (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	/* one fputs per line: stdio locks the stream, threads don't interleave */
	fprintf(stderr, "%s\n", line);
}
