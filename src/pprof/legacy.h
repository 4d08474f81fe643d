/* SPDX-License-Identifier: MIT */
/*
 * Legacy pprof inputs, as go tool pprof reads them: the gperftools CPU
 * profile (binary words, CPUPROFILE=), the heap (heapprofile, heap, heap_v2,
 * heapz_v2), growth and fragmentation text profiles, the contention
 * (contentionz, mutex, contention) and thread (threadz) text profiles and Go
 * count profiles (goroutine, threadcreate). Each is raw addresses plus a
 * /proc/self/maps section: read into a pprof profile with pprof's own
 * conventions (sample types and scaling, return addresses - 1, the CPU
 * profiler's signal frames dropped, mappings merged and the main binary
 * first), so go tool pprof -raw prints the same profile for both.
 *
 * The input is untrusted: lines are capped (1 MiB), every count and
 * address is range-checked, and memory counts against the profile's cap.
 * Java's heapz, contentionz and CPU profiles (legacyjava.c) carry their
 * own symbol section: read into symbolized locations, as pprof reads them.
 */
#ifndef PSYM_LEGACY_H
#define PSYM_LEGACY_H

#include <stdbool.h>
#include <stddef.h>

#include "pprof.h"

enum psym_legacy_kind {
	PSYM_LEGACY_NONE,
	PSYM_LEGACY_CPU,
	PSYM_LEGACY_HEAP, /* heap, growth, fragmentation */
	PSYM_LEGACY_COUNT,
	PSYM_LEGACY_THREAD,
	PSYM_LEGACY_CONTENTION,
	PSYM_LEGACY_JAVA_CPU,
	PSYM_LEGACY_JAVA, /* heapz / contentionz / cpu text with "format = java" */
};

/* Which legacy format buf starts like (no full parse). */
enum psym_legacy_kind psym_legacy_detect(const unsigned char *buf, size_t len);

/* Parse a legacy profile into a new profile; errors name the file. */
int psym_legacy_parse(const unsigned char *buf, size_t len, const char *name,
		      const struct psym_limits *lim, struct psym_profile **out, struct psym_err *e);

#endif
