/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdint.h>

#include "arena.h"
#include "error.h"
#include "tap.h"

int main(void)
{
	struct psym_arena a;
	void *arr = NULL;
	size_t cap = 0;
	char *s;
	int *p;

	psym_arena_init(&a, 1 << 20);
	p = psym_arena_alloc(&a, 10);
	ok(p && ((uintptr_t)p & 15) == 0, "allocation is 16-byte aligned");
	s = psym_arena_strdup(&a, "hello");
	is_str(s, "hello", "strdup");
	s = psym_arena_printf(&a, "%s-%d", "x", 42);
	is_str(s, "x-42", "printf");
	s = psym_arena_strndup(&a, "abcdef", 3);
	is_str(s, "abc", "strndup");
	ok(psym_arena_grow(&a, &arr, &cap, 100, sizeof(int)) == 0 && cap >= 100,
	   "grow to 100 ints");
	((int *)arr)[99] = 7;
	ok(psym_arena_grow(&a, &arr, &cap, 1000, sizeof(int)) == 0 && ((int *)arr)[99] == 7,
	   "grow keeps contents");

	/* The cap is a hard limit, reported as a limit, not as OOM. */
	ok(psym_arena_alloc(&a, 2 << 20) == NULL, "allocation over the cap fails");
	ok(a.over_limit && !a.oom, "over_limit set");
	is_int(psym_arena_error(&a), PSYM_ELIMIT, "error is PSYM_ELIMIT");
	ok(psym_arena_calloc(&a, SIZE_MAX / 2, 4) == NULL, "calloc overflow caught");
	ok(psym_arena_alloc(&a, SIZE_MAX) == NULL, "SIZE_MAX refused");
	ok(a.used <= a.cap, "never past the cap (%zu <= %zu)", a.used, a.cap);
	psym_arena_free(&a);
	psym_arena_free(&a);
	psym_arena_free(NULL);
	ok(1, "free is idempotent and accepts NULL");

	is_str(psym_strerror(PSYM_EBADGZIP), "corrupt gzip data", "strerror");
	is_str(psym_strerror(-9999), "unknown error", "strerror of unknown code");
	is_int(psym_exit_code(PSYM_EIO), 3, "I/O error exits 3");
	is_int(psym_exit_code(PSYM_EBADPROFILE), 2, "bad profile exits 2");
	{
		struct psym_err e = { 0 };

		psym_err_set(&e, PSYM_EIO, "line one\nline two");
		ok(!strchr(e.msg, '\n'), "messages are one line");
		psym_err_prefix(&e, "'%s'", "f.pb");
		is_str(e.msg, "'f.pb': line one line two", "prefix");
	}
	return tap_done();
}
