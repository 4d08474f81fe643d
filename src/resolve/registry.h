/* SPDX-License-Identifier: MIT */
/*
 * The resolver registry: each object (a binary by path and build ID, the
 * kernel, the vDSO, JIT maps) is located and opened once, the first time a
 * key asks for it, and shared by every mapping, and by every run of a
 * batch, that names the same key. Keys are hashed (hashtab.h): a profile
 * with 200,000 distinct mappings costs 200,000 lookups, not their square.
 *
 * Objects are closed again past a cap (psym_registry_set_max_open).
 *
 * Thread-safe: an entry is returned locked (a resolver's calls are not
 * thread-safe); another thread asking for the same key waits while it is
 * opened or used; different keys proceed in parallel.
 */
#ifndef PSYM_REGISTRY_H
#define PSYM_REGISTRY_H

#include "reason.h"
#include "resolver.h"

struct psym_registry;
struct psym_regentry;

/* An empty registry of at most max keys (0: no cap); PSYM_ELIMIT past it. */
struct psym_registry *psym_registry_new(size_t max);

/*
 * At most this many objects are open at once (mapped files, decoded
 * DWARF): past it, the least recently used ones that no thread holds are
 * closed, and opened again if a later key asks for them, as LLVM's
 * symbolizer caps its open binaries. Keys whose object was not found keep
 * their reason and never count.
 */
#define PSYM_REGISTRY_DEFAULT_OPEN 1024
void psym_registry_set_max_open(struct psym_registry *g, size_t max_open);
/* How many objects were closed for the cap and opened again. */
size_t psym_registry_reopened(struct psym_registry *g);
/*
 * The run is over: every open resolver acts on what it learned
 * (psym_resolver_finish: the index build policy). The driver calls it once,
 * from the thread that owns the run (never a batch worker), before the
 * free. Objects closed for the cap before it were asked when they were
 * closed, on the thread whose get closed them. NULL is fine.
 */
void psym_registry_finish(struct psym_registry *g);
/* Frees every resolver, without finish. NULL is fine. No entry may be held. */
void psym_registry_free(struct psym_registry *g);

/*
 * Opens the object of a new key: 0 with *out, PSYM_NOENT with why (the
 * key then stays unresolved for the registry's life, with that reason), or
 * a negative error (nothing is remembered; the next get tries again).
 */
typedef int (*psym_open_fn)(void *ud, struct psym_resolver **out, struct psym_reason *why,
			    struct psym_err *e);

/*
 * The entry for key (any bytes up to the NUL), opened with open_fn(ud) on
 * first use. Returned locked: release it with psym_regentry_release.
 */
int psym_registry_get(struct psym_registry *g, const char *key, psym_open_fn open_fn, void *ud,
		      struct psym_regentry **out, struct psym_err *e);

/* The resolver (NULL when the object was not found) and why not (copied to *why). */
struct psym_resolver *psym_regentry_resolver(const struct psym_regentry *x);
void psym_regentry_reason(const struct psym_regentry *x, struct psym_reason *why);

/*
 * Which opening of its object the entry's resolver is: a number no other
 * resolver of this registry had or will have, also not this object's once
 * it is closed for the cap and opened again (0 when none is open). The
 * resolver's borrowed strings may sit, after it is closed, where a later
 * resolver's are: whatever is kept by their addresses past one use of the
 * entry must be keyed by this number too (funcmemo.h).
 */
uint64_t psym_regentry_serial(const struct psym_regentry *x);

void psym_regentry_release(struct psym_regentry *x);

#endif
