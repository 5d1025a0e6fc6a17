/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One line per event on stderr, prefixed "isocam-emu:". Whether an event
 * is verbose-only is decided by the caller from its own config, so there
 * is no process-wide log state for cameras to share.
 */
#ifndef ISOCAM_EMU_LOG_H
#define ISOCAM_EMU_LOG_H

__attribute__((format(printf, 1, 2)))
void emu_log(const char *fmt, ...);

#endif /* ISOCAM_EMU_LOG_H */
