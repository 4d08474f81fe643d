/* SPDX-License-Identifier: MIT */
/*
 * psym-collect's mapping tracker (BPF-collector/mmaptrack.c) without root:
 * records written into rings laid out as the kernel lays a perf ring
 * (mmaptrack_open_rings), then read as a drain reads them. Exec, fork,
 * mmap, exit and lost records; the images an exec leaves, found by a
 * sample's image time; records of one process on two CPUs' rings taken in
 * time order; a record across the ring's end; a corrupt header stops the
 * read there; the process cap; the sweep after an exit; and build IDs the
 * kernel did not give, read from the file as mapped (a file built without
 * one is read, not unreadable).
 *
 * The pids are above the kernel's largest pid_max (4194304), so that no
 * /proc entry of this machine can answer for them.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmaptrack.h"
#include "tap.h"

#define DATA 4096 /* data bytes per ring: small, so that records wrap */
#define PID 5000001
#define CHILD 5000002

struct tring {
	unsigned char *base; /* the header page, then DATA bytes */
	size_t page;
};

static void ring_init(struct tring *r, uint64_t start)
{
	struct perf_event_mmap_page *mp;

	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->base = aligned_alloc(r->page, r->page + (DATA + r->page - 1) / r->page * r->page);
	if (!r->base)
		abort();
	memset(r->base, 0, r->page + DATA);
	mp = (struct perf_event_mmap_page *)r->base;
	mp->data_offset = r->page;
	mp->data_size = DATA;
	mp->data_head = mp->data_tail = start; /* where the next record goes */
}

/* Append one record (header, body, the sample_id_all time stamp), wrapping. */
static void put_rec(struct tring *r, uint32_t type, uint16_t misc, const void *body, size_t len,
		    uint64_t time)
{
	struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->base;
	unsigned char rec[512];
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t n = sizeof(h) + ((len + 7) & ~(size_t)7) + 8;

	if (n > sizeof(rec))
		abort();
	memset(rec, 0, sizeof(rec));
	h.size = (uint16_t)n;
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, len);
	memcpy(rec + n - 8, &time, 8);
	for (size_t i = 0; i < n; i++)
		r->base[r->page + (mp->data_head + i) % DATA] = rec[i];
	mp->data_head += n;
}

static void put_exec(struct tring *r, uint32_t pid, const char *comm, uint64_t time)
{
	unsigned char b[32] = { 0 };

	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	snprintf((char *)b + 8, 16, "%s", comm);
	put_rec(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, b, 24, time);
}

static void put_task(struct tring *r, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint64_t time)
{
	unsigned char b[24] = { 0 };

	memcpy(b, &pid, 4);
	memcpy(b + 4, &ppid, 4);
	memcpy(b + 8, &tid, 4);
	memcpy(b + 12, &ppid, 4);
	memcpy(b + 16, &time, 8);
	put_rec(r, type, 0, b, sizeof(b), time);
}

/* An executable mapping with the build ID the kernel read (bid_len 0: none given). */
static void put_mmap(struct tring *r, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		     const char *path, const unsigned char *bid, uint8_t bid_len, uint64_t time)
{
	unsigned char b[400] = { 0 };
	size_t plen = strlen(path) + 1;

	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &addr, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	if (bid_len) {
		b[32] = bid_len;
		memcpy(b + 36, bid, bid_len);
	}
	if (!bid_len) { /* maj, min, ino, generation: the inode a hash of the path */
		uint64_t ino = 1469598103934665603ULL;

		for (const char *c = path; *c; c++)
			ino = (ino ^ (unsigned char)*c) * 1099511628211ULL;
		memcpy(b + 40, &ino, 8);
	}
	b[56] = 5; /* PROT_READ | PROT_EXEC */
	memcpy(b + 64, path, plen);
	put_rec(r, PERF_RECORD_MMAP2, bid_len ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0, b, 64 + plen,
		time);
}

static uint64_t tail(const struct tring *r)
{
	return ((const struct perf_event_mmap_page *)r->base)->data_tail;
}

/* The maps of pid's image: how many, and the first one's path and build ID. */
static size_t maps(struct mmaptrack *t, int pid, uint64_t image, char *path, char *bid,
		   bool *complete)
{
	struct psym_procmap *m = NULL;
	char exe[256];
	size_t n = 0;

	path[0] = bid[0] = '\0';
	*complete = false;
	if (mmaptrack_maps(t, pid, image, &m, &n, complete, exe, sizeof(exe)) != 0)
		return 0;
	if (n) {
		snprintf(path, 256, "%.255s", m[0].path);
		snprintf(bid, 64, "%.63s", m[0].build_id);
	}
	free(m);
	return n;
}

static int freed[8], nfreed;

static void on_freed(void *ud, int pid)
{
	(void)ud;
	if (nfreed < 8)
		freed[nfreed++] = pid;
}

int main(void)
{
	static const unsigned char bid_a[20] = { 0xaa, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
						 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
						 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13 };
	static const unsigned char bid_b[20] = { 0xbb };
	struct mmaptrack_opts o = { .max_procs = 3, .max_paths = 64 };
	struct psym_err e = { 0 };
	struct mmaptrack_stats st;
	struct mmaptrack *t;
	struct tring r0, r1;
	void *bases[2];
	char path[256], bid[64];
	bool complete;
	uint64_t next;
	int ret;

	/* Ring 0 starts 24 bytes before its end: the first record wraps. */
	ring_init(&r0, DATA - 24);
	ring_init(&r1, 0);
	bases[0] = r0.base;
	bases[1] = r1.base;
	ret = mmaptrack_open_rings(&o, bases, 2, DATA, &t, &e);
	is_int(ret, 0, "a tracker on two rings of the test's own");
	if (ret)
		return tap_done();
	mmaptrack_images_since(t, 0);

	/* PID execs /bin/a (the record across ring 0's end); the mapping's
	 * record is on the other CPU's ring, written before the exec's. */
	put_mmap(&r1, PID, 0x400000, 0x10000, 0x1000, "/bin/a", bid_a, 20, 11);
	put_exec(&r0, PID, "a", 10);
	mmaptrack_poll(t, 1);
	is_int(tail(&r0), DATA - 24 + 40, "ring 0: the wrapped record read whole (tail past it)");
	is_int(maps(t, PID, 10, path, bid, &complete), 1,
	       "the exec's image holds the mapping from the other ring (time order)");
	is_str(path, "/bin/a", "its path");
	is_str(bid, "aa0102030405060708090a0b0c0d0e0f10111213",
	       "its build ID, as the kernel gave it");
	ok(complete, "seen from its exec: complete");
	ok(mmaptrack_holds(t, PID, 10, 0x40ffff) && !mmaptrack_holds(t, PID, 10, 0x410000),
	   "holds its range [start, limit), not the limit");

	/* A later mapping over part of it replaces what it overlaps. */
	put_mmap(&r0, PID, 0x408000, 0x10000, 0, "/lib/x.so", bid_b, 20, 12);
	mmaptrack_poll(t, 1);
	is_int(maps(t, PID, 10, path, bid, &complete), 1,
	       "an overlapping mapping replaces the old one (munmap is not reported)");
	is_str(path, "/lib/x.so", "the new mapping's path");

	/* A thread (pid == ppid) and a thread's exit change nothing. */
	put_task(&r0, PERF_RECORD_FORK, PID, PID, PID + 10, 13);
	put_task(&r0, PERF_RECORD_EXIT, PID, PID, PID + 10, 14);
	/* CHILD forks from PID, then execs /bin/b. */
	put_task(&r0, PERF_RECORD_FORK, CHILD, PID, CHILD, 15);
	put_exec(&r1, CHILD, "b", 20);
	put_mmap(&r1, CHILD, 0x500000, 0x2000, 0, "/bin/b", NULL, 0, 21);
	mmaptrack_poll(t, 2);
	mmaptrack_stats(t, &st);
	is_int(st.forks, 1, "one fork counted, the thread's not");
	is_int(st.exits, 0, "a thread's exit is not the process's");
	is_int(maps(t, CHILD, 16, path, bid, &complete), 1,
	       "a sample before the child's exec: the image it inherited");
	is_str(path, "/lib/x.so", "... its parent's mapping");
	ok(complete, "... complete (its parent was)");
	is_int(maps(t, CHILD, 20, path, bid, &complete), 1,
	       "a sample after the exec: the new image");
	is_str(path, "/bin/b", "... its own mapping");
	is_str(bid, "", "... no build ID (the kernel gave none; the file cannot be read)");
	mmaptrack_stats(t, &st);
	is_int(st.bids_failed, 1, "the unreadable build ID counted as such");
	ret = mmaptrack_next_image(t, CHILD, 16, 0x500100, &next, &complete);
	ok(ret == 0 && next == 20,
	   "the next image after the inherited one holds the address (%d, %lu)", ret,
	   (unsigned long)next);
	ok(mmaptrack_next_image(t, CHILD, 20, 0x500100, &next, &complete) != 0,
	   "none after the current image");

	/* The cap: PID, CHILD and one more; the fourth is not tracked. */
	put_exec(&r0, 5000003, "c", 30);
	put_exec(&r0, 5000004, "d", 31);
	put_rec(&r0, PERF_RECORD_LOST, 0, (uint64_t[2]){ 7, 5 }, 16, 32);
	mmaptrack_poll(t, 3);
	mmaptrack_stats(t, &st);
	is_int(st.procs_untracked, 1, "over --max-procs: counted, not tracked");
	is_int(st.lost, 5, "a lost record's count added up");
	is_int(st.execs, 4, "four execs");

	/* A corrupt header (size below a header and its time stamp): the read
	 * stops there and leaves the tail at it. */
	{
		struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r1.base;
		uint64_t at = mp->data_head;
		struct perf_event_header h = { .type = PERF_RECORD_EXIT, .size = 4 };

		memcpy(r1.base + r1.page + at % DATA, &h, sizeof(h));
		mp->data_head += 64;
		mmaptrack_poll(t, 4);
		is_int(tail(&r1), at, "a corrupt record: nothing taken past it");
		mp->data_head = mp->data_tail = at;
	}

	/* PID exits; the sweep frees it after the drain that follows. */
	put_task(&r0, PERF_RECORD_EXIT, PID, PID, PID, 40);
	mmaptrack_poll(t, 5);
	nfreed = 0;
	mmaptrack_sweep(t, 5, on_freed, NULL);
	ok(nfreed == 0 && maps(t, PID, 10, path, bid, &complete) == 1,
	   "exited: kept until its samples are drained");
	mmaptrack_sweep(t, 7, on_freed, NULL);
	ok(nfreed >= 1 && freed[0] == PID, "freed by a later sweep, and the caller told (%d)",
	   nfreed ? freed[0] : 0);
	is_int(maps(t, PID, 10, path, bid, &complete), 0, "gone once freed");
	is_int(maps(t, CHILD, 20, path, bid, &complete), 1, "the child stays");

	/* Build IDs the kernel did not give, read from the file as this
	 * process maps it: an ELF file with no note has none (read, not
	 * unreadable); this test's own executable has its GNU build ID. */
	{
		char noid[] = "/tmp/psym-mmaptrack-XXXXXX", self[4096];
		unsigned char eh[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 }; /* 64-bit, no phdrs */
		int fd = mkstemp(noid);
		ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
		struct psym_procmap *m = NULL;
		char exe[256];
		size_t n = 0;

		ok(fd >= 0 && write(fd, eh, sizeof(eh)) == (ssize_t)sizeof(eh) && sl > 0,
		   "a file without a build ID note, and this test's executable");
		if (fd >= 0)
			close(fd);
		self[sl > 0 ? sl : 0] = '\0';
		put_mmap(&r0, (uint32_t)getpid(), 0x700000, 0x1000, 0, noid, NULL, 0, 50);
		put_mmap(&r0, (uint32_t)getpid(), 0x800000, 0x1000, 0, self, NULL, 0, 51);
		mmaptrack_poll(t, 8);
		mmaptrack_stats(t, &st);
		is_int(st.bids_none, 1, "the file without a note: has none");
		is_int(st.bids_read, 2, "both files read");
		is_int(st.bids_failed, 1, "still only /bin/b unreadable");
		if (mmaptrack_maps(t, getpid(), UINT64_MAX, &m, &n, &complete, exe, sizeof(exe)) ==
			    0 &&
		    n == 2) {
			is_str(m[0].build_id, "", "its mapping has no build ID");
			char want[128] = "", line[512], cmd[4200];
			FILE *re;

			/* Not /proc/self/exe: in popen's shell that is the shell. */
			snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", self);
			re = popen(cmd, "r");

			while (re && fgets(line, sizeof(line), re))
				if (sscanf(line, " Build ID: %127s", want) == 1)
					break;
			if (re)
				pclose(re);
			if (want[0])
				is_str(m[1].build_id, want,
				       "the executable's, as readelf -n reads it");
			else
				is_int(strlen(m[1].build_id), 40,
				       "the executable's: 40 hex digits (%s)", m[1].build_id);
		} else {
			ok(0, "this process's two mappings recorded (%zu)", n);
		}
		free(m);
		unlink(noid);
	}

	mmaptrack_close(t);
	free(r0.base);
	free(r1.base);
	return tap_done();
}
