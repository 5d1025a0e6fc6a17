// SPDX-License-Identifier: GPL-2.0
/*
 * warnmod: test-only module for the VM harness's self-test. It triggers one
 * WARN at load time and otherwise loads cleanly, so the harness must fail a
 * guest script that loads it even though the script itself succeeds.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init warnmod_init(void)
{
	WARN(1, "isocam warnmod: deliberate warning for the harness self-test\n");
	return 0;
}
module_init(warnmod_init);

static void __exit warnmod_exit(void)
{
}
module_exit(warnmod_exit);

MODULE_DESCRIPTION("isocam VM harness self-test: WARN on load");
MODULE_LICENSE("GPL");
