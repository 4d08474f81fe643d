// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel module built at test time against Debian's kernel headers
 * (tests/kmod-lines.sh): code in .text (exported functions with inlined
 * helpers, a loop, a switch), .init.text, .exit.text and .text.unlikely.
 * It is never loaded: its DWARF is what psym and eu-addr2line read.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static inline unsigned long pmod_mix(unsigned long x)
{
	return (x ^ (x >> 7)) * 0x9e3779b97f4a7c15UL;
}

static inline unsigned long pmod_fold(unsigned long h, unsigned long v)
{
	return pmod_mix(h + v) ^ (h << 3);
}

unsigned long pmod_hash(const unsigned long *v, int n)
{
	unsigned long h = 0;
	int i;

	for (i = 0; i < n; i++)
		h = pmod_fold(h, v[i]);
	return h;
}
EXPORT_SYMBOL_GPL(pmod_hash);

int pmod_classify(const char *s)
{
	size_t len = strlen(s);

	switch (len) {
	case 0: return -EINVAL;
	case 1:
	case 2: return s[0] == 'x' ? 1 : 2;
	default: return (int)(pmod_mix(len) & 0xff);
	}
}
EXPORT_SYMBOL_GPL(pmod_classify);

static noinline unsigned long pmod_sum(const unsigned long *v, int n)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += pmod_mix(v[i]);
	return s;
}

static int __init pmod_init(void)
{
	unsigned long *v = kmalloc_array(16, sizeof(*v), GFP_KERNEL);
	int i;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < 16; i++)
		v[i] = i;
	pr_info("pmod: %lu %lu %d\n", pmod_sum(v, 16), pmod_hash(v, 16), pmod_classify("xy"));
	kfree(v);
	return 0;
}

static void __exit pmod_exit(void)
{
	pr_info("pmod: bye\n");
}

module_init(pmod_init);
module_exit(pmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("psym test module");
