// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: reads memory it has just freed, once, at load. Under KASAN
 * this must be reported ("BUG: KASAN: use-after-free in
 * isocam_uaftest_init"), and the harness must fail the script that
 * loaded it. Never built by the top-level Kbuild.
 */
#include <linux/module.h>
#include <linux/slab.h>

static int __init isocam_uaftest_init(void)
{
	u8 *p = kmalloc(64, GFP_KERNEL);
	u8 v;

	if (!p)
		return -ENOMEM;
	p[0] = 0x5a;
	kfree(p);
	v = READ_ONCE(p[0]);	/* the use after free */
	pr_info("isocam_uaftest: read 0x%02x from freed memory\n", v);
	return 0;
}

static void __exit isocam_uaftest_exit(void)
{
}

module_init(isocam_uaftest_init);
module_exit(isocam_uaftest_exit);
MODULE_DESCRIPTION("isocam harness self-test: a deliberate use-after-free");
MODULE_LICENSE("GPL");
