/* SPDX-License-Identifier: MIT */
/*
 * Arena allocator with a hard byte cap.
 *
 * Everything of one profile (protobuf-c structs, arrays, strings) comes from
 * one arena and is freed at once by psym_arena_free(). Allocation beyond the
 * cap fails (returns NULL) and sets arena->over_limit, so callers can tell a
 * hostile input that asks for too much from a real out-of-memory.
 */
#ifndef PSYM_ARENA_H
#define PSYM_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

struct psym_arena_chunk;

struct psym_arena {
	struct psym_arena_chunk *head;
	size_t used;		/* bytes handed out, including chunk slack */
	size_t cap;		/* hard limit on bytes obtained from malloc */
	bool over_limit;	/* an allocation failed because of cap */
	bool oom;		/* an allocation failed because malloc failed */
	ProtobufCAllocator pbc; /* protobuf-c allocator backed by this arena */
};

/* Default cap: 8 GiB. */
#define PSYM_ARENA_DEFAULT_CAP ((size_t)8 << 30)

void psym_arena_init(struct psym_arena *a, size_t cap);
/* Free every chunk. Safe on an initialized, empty or NULL arena. */
void psym_arena_free(struct psym_arena *a);

/* Forget everything allocated, keeping the newest chunk for what comes next. */
void psym_arena_reset(struct psym_arena *a);

/* 16-byte aligned, uninitialized. NULL on failure (see flags). */
void *psym_arena_alloc(struct psym_arena *a, size_t n);
/* Zeroed, with overflow check on n * size. */
void *psym_arena_calloc(struct psym_arena *a, size_t n, size_t size);
/* Copy of s (NUL-terminated); of at most len bytes for _strndup. */
char *psym_arena_strdup(struct psym_arena *a, const char *s);
char *psym_arena_strndup(struct psym_arena *a, const char *s, size_t len);
char *psym_arena_printf(struct psym_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Grow an arena array of elem-sized items to hold at least `need` items.
 * *arr and *cap are updated; old contents are copied (the old block stays in
 * the arena until it is freed). Returns 0 or PSYM_ENOMEM / PSYM_ELIMIT.
 */
int psym_arena_grow(struct psym_arena *a, void **arr, size_t *cap, size_t need, size_t elem);

/* The error code for the last failure: PSYM_ELIMIT or PSYM_ENOMEM. */
int psym_arena_error(const struct psym_arena *a);

#endif
