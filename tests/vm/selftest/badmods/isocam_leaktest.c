// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: allocates at load and forgets the pointer. kmemleak must
 * report it with isocam_leaktest_init in the backtrace, and the harness
 * must fail the script that loaded it. Never built by the top-level
 * Kbuild.
 */
#include <linux/module.h>
#include <linux/slab.h>

static noinline void isocam_leaktest_lose(void)
{
	void *p = kmalloc(256, GFP_KERNEL);

	/* Touch it so the allocation cannot be optimized away. */
	if (p)
		memset(p, 0xa5, 256);
	pr_info("isocam_leaktest: leaked 256 bytes\n");
}

static int __init isocam_leaktest_init(void)
{
	isocam_leaktest_lose();
	return 0;
}

static void __exit isocam_leaktest_exit(void)
{
}

module_init(isocam_leaktest_init);
module_exit(isocam_leaktest_exit);
MODULE_DESCRIPTION("isocam harness self-test: a deliberate memory leak");
MODULE_LICENSE("GPL");
