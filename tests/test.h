/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit-test scaffolding in the style of the kernel's tools/testing/vma: each
 * test is a function that returns false with file, line and expression on
 * the first failed assertion; TEST() runs and counts it; test_summary()
 * prints the one closing line `N passed, N failed` and gives the exit code.
 */
#ifndef VMAFUZZ_TEST_H
#define VMAFUZZ_TEST_H

#include <stdbool.h>
#include <stdio.h>

static int test_passed, test_failed;

#define ASSERT(expr)                                                                               \
	do {                                                                                       \
		if (!(expr)) {                                                                     \
			fprintf(stderr, "%s:%d: %s: assertion failed: %s\n", __FILE__, __LINE__,   \
				__func__, #expr);                                                  \
			return false;                                                              \
		}                                                                                  \
	} while (0)

#define ASSERT_EQ(a, b)                                                                            \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(a);                                   \
		unsigned long long b_ = (unsigned long long)(b);                                   \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "%s:%d: %s: %s == %s failed: %#llx != %#llx\n", __FILE__,  \
				__LINE__, __func__, #a, #b, a_, b_);                               \
			return false;                                                              \
		}                                                                                  \
	} while (0)

#define TEST(fn)                                                                                   \
	do {                                                                                       \
		if (fn()) {                                                                        \
			test_passed++;                                                             \
		} else {                                                                           \
			test_failed++;                                                             \
			fprintf(stderr, "FAIL %s\n", #fn);                                         \
		}                                                                                  \
	} while (0)

static inline int test_summary(void)
{
	printf("%d passed, %d failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}

#endif
