/* SPDX-License-Identifier: MIT */
/*
 * perf.data as perf 6.x writes it (tools/perf/Documentation/
 * perf.data-file-format.txt): file mode (the PERFILE2 header, the
 * attributes section, the data section, the feature sections after it)
 * and pipe mode (`perf record -o -`: the short header, then HEADER_ATTR,
 * HEADER_FEATURE and HEADER_BUILD_ID records among the others), records
 * compressed with zstd (`perf record -z`: COMPRESSED and COMPRESSED2, one
 * zstd stream across them, records split between them), and the
 * sample_id_all trailers of non-sample records.
 *
 * One loop reads the records in file order from the caller's buffer in
 * place (only decompressed bytes are held, a bounded window of them) and
 * hands each to a callback of a table shaped like perf's struct
 * perf_tool. The file is untrusted: every size and offset is checked; on
 * a bad record the loop stops with one line naming the file and the
 * record's offset, after every record before it was delivered.
 * Big-endian recordings are refused with one line.
 */
#ifndef PSYM_PERFDATA_H
#define PSYM_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* perf_event_attr.sample_type bits (linux/perf_event.h). */
enum {
	PSYM_PERF_SAMPLE_IP = 1 << 0,
	PSYM_PERF_SAMPLE_TID = 1 << 1,
	PSYM_PERF_SAMPLE_TIME = 1 << 2,
	PSYM_PERF_SAMPLE_ADDR = 1 << 3,
	PSYM_PERF_SAMPLE_READ = 1 << 4,
	PSYM_PERF_SAMPLE_CALLCHAIN = 1 << 5,
	PSYM_PERF_SAMPLE_ID = 1 << 6,
	PSYM_PERF_SAMPLE_CPU = 1 << 7,
	PSYM_PERF_SAMPLE_PERIOD = 1 << 8,
	PSYM_PERF_SAMPLE_STREAM_ID = 1 << 9,
	PSYM_PERF_SAMPLE_RAW = 1 << 10,
	PSYM_PERF_SAMPLE_BRANCH_STACK = 1 << 11,
	PSYM_PERF_SAMPLE_REGS_USER = 1 << 12,
	PSYM_PERF_SAMPLE_STACK_USER = 1 << 13,
	PSYM_PERF_SAMPLE_WEIGHT = 1 << 14,
	PSYM_PERF_SAMPLE_DATA_SRC = 1 << 15,
	PSYM_PERF_SAMPLE_IDENTIFIER = 1 << 16,
	PSYM_PERF_SAMPLE_TRANSACTION = 1 << 17,
	PSYM_PERF_SAMPLE_REGS_INTR = 1 << 18,
	PSYM_PERF_SAMPLE_PHYS_ADDR = 1 << 19,
	PSYM_PERF_SAMPLE_AUX = 1 << 20,
	PSYM_PERF_SAMPLE_CGROUP = 1 << 21,
	PSYM_PERF_SAMPLE_DATA_PAGE_SIZE = 1 << 22,
	PSYM_PERF_SAMPLE_CODE_PAGE_SIZE = 1 << 23,
	PSYM_PERF_SAMPLE_WEIGHT_STRUCT = 1 << 24,
};

/* Callchain context markers (enum perf_callchain_context). */
#define PSYM_PERF_CONTEXT_HV ((uint64_t)-32)
#define PSYM_PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PSYM_PERF_CONTEXT_USER ((uint64_t)-512)
#define PSYM_PERF_CONTEXT_GUEST ((uint64_t)-2048)
#define PSYM_PERF_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PSYM_PERF_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PSYM_PERF_CONTEXT_MAX ((uint64_t)-4095)

/* header.misc's cpumode (misc & 7). */
enum {
	PSYM_PERF_MISC_KERNEL = 1,
	PSYM_PERF_MISC_USER = 2,
	PSYM_PERF_MISC_HYPERVISOR = 3,
	PSYM_PERF_MISC_GUEST_KERNEL = 4,
	PSYM_PERF_MISC_GUEST_USER = 5,
};

#define PSYM_PERF_BUILD_ID_MAX 20
/* At most this many callchain entries are kept per sample (the rest dropped). */
#define PSYM_PERF_MAX_CALLCHAIN 4096

/* One event (an attribute). */
struct psym_perf_attr {
	uint32_t type;
	uint64_t config;
	uint64_t period; /* sample_period, or sample_freq when freq */
	bool freq, sample_id_all;
	uint64_t sample_type, read_format, branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	const char
		*name; /* EVENT_DESC's (or EVENT_UPDATE's) name, else one made from type/config */
};

struct psym_perf_sample {
	const struct psym_perf_attr *attr;
	size_t attr_index;
	uint64_t offset; /* the record's file offset */
	uint16_t misc;
	uint64_t ip, addr, id, stream_id, period, time;
	uint32_t pid, tid, cpu;
	/* CALLCHAIN (with its context markers), at most PSYM_PERF_MAX_CALLCHAIN. */
	const uint64_t *callchain;
	size_t nr_callchain;
	const uint8_t *raw; /* RAW, in the record */
	uint32_t raw_size;
	/*
	 * REGS_USER: abi 0 means none; regs[i] is the i-th bit set in
	 * attr->sample_regs_user (perf's own register numbers).
	 */
	uint64_t regs_abi;
	const uint64_t *regs;
	size_t nregs;
	/* STACK_USER: stack_size bytes copied, dyn_size of them valid. */
	const uint8_t *stack;
	uint64_t stack_size, dyn_size;
};

/* The sample_id_all fields of a non-sample record (zero when absent). */
struct psym_perf_id {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	bool has_time;
};

struct psym_perf_mmap {
	uint64_t offset;
	uint16_t misc;
	bool mmap2;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags; /* MMAP2 */
	bool exec;	      /* PROT_EXEC (MMAP: not a data mapping) */
	uint8_t build_id[PSYM_PERF_BUILD_ID_MAX];
	size_t build_id_len; /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	bool has_inode;	     /* MMAP2 without a build ID: the file's device and inode */
	uint32_t maj, min;
	uint64_t ino;
	const char *filename;
	struct psym_perf_id sid;
};

struct psym_perf_comm {
	uint64_t offset;
	uint32_t pid, tid;
	bool exec;
	const char *comm;
	struct psym_perf_id sid;
};

/* FORK and EXIT. */
struct psym_perf_task {
	uint64_t offset;
	bool fork;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	struct psym_perf_id sid;
};

/* LOST (id, lost), LOST_SAMPLES (lost), THROTTLE/UNTHROTTLE (time, id). */
struct psym_perf_misc {
	uint64_t offset;
	uint32_t type;
	uint64_t id, lost, time;
	struct psym_perf_id sid;
};

/* One entry of the build-ID table (HEADER_BUILD_ID). */
struct psym_perf_build_id {
	int32_t pid;
	uint16_t misc; /* its cpumode: kernel ones are PSYM_PERF_MISC_KERNEL */
	uint8_t id[PSYM_PERF_BUILD_ID_MAX];
	size_t len;
	const char *filename;
};

/* What the header and the feature sections say (strings "" when absent). */
struct psym_perf_info {
	bool pipe;
	const char *hostname, *osrelease, *arch, *version, *cmdline;
	uint32_t nr_cpus_online, nr_cpus_avail;
};

/* The record types the loop names (PERF_RECORD_*, perf's own from 64). */
enum {
	PSYM_PERF_RECORD_MMAP = 1,
	PSYM_PERF_RECORD_LOST = 2,
	PSYM_PERF_RECORD_COMM = 3,
	PSYM_PERF_RECORD_EXIT = 4,
	PSYM_PERF_RECORD_THROTTLE = 5,
	PSYM_PERF_RECORD_UNTHROTTLE = 6,
	PSYM_PERF_RECORD_FORK = 7,
	PSYM_PERF_RECORD_SAMPLE = 9,
	PSYM_PERF_RECORD_MMAP2 = 10,
	PSYM_PERF_RECORD_LOST_SAMPLES = 13,
	PSYM_PERF_RECORD_FINISHED_ROUND = 68,
};

/*
 * Called per record, in file order; NULL entries skip theirs. A nonzero
 * return stops the loop and is returned.
 */
struct psym_perf_tool {
	int (*sample)(void *ud, const struct psym_perf_sample *s);
	int (*mmap)(void *ud, const struct psym_perf_mmap *m); /* MMAP and MMAP2 */
	int (*comm)(void *ud, const struct psym_perf_comm *c);
	int (*task)(void *ud, const struct psym_perf_task *t); /* FORK and EXIT */
	int (*misc)(void *ud, const struct psym_perf_misc *m); /* LOST, LOST_SAMPLES, THROTTLE */
	int (*finished_round)(void *ud);
};

struct psym_perfdata;

struct psym_perfdata_stats {
	uint64_t records, samples, compressed, unknown, lost;
	uint64_t callchains_cut; /* callchains longer than PSYM_PERF_MAX_CALLCHAIN */
};

/* Whether buf starts like perf.data (either byte order, file or pipe). */
bool psym_perfdata_sniff(const void *buf, size_t len);

/*
 * Read the header of buf[len] (borrowed: it must outlive *out): file
 * mode's attributes and feature sections, or pipe mode's header records
 * (a first pass over the records). name is used in messages.
 */
int psym_perfdata_open(const void *buf, size_t len, const char *name, struct psym_perfdata **out,
		       struct psym_err *e);
/*
 * The same for a regular file open at fd (borrowed: it must stay open
 * until psym_perfdata_free) of size bytes: the header, attributes and
 * feature sections are read with pread at their offsets, the records by
 * psym_perfdata_run through a window of a few MiB, so memory does not
 * grow with the file. A file that shrinks or grows while read is an
 * error naming it. Pipe mode (psym_perfdata_is_pipe) is read from memory.
 */
int psym_perfdata_open_fd(int fd, uint64_t size, const char *name, struct psym_perfdata **out,
			  struct psym_err *e);
/* Whether the first len bytes of a perf.data file say pipe mode. */
bool psym_perfdata_is_pipe(const void *buf, size_t len);
void psym_perfdata_free(struct psym_perfdata *d);

/*
 * Deliver every record to tool: in time order as perf reads them when
 * every record carries its time (queued until the round after the one
 * that ends with FINISHED_ROUND), else in file order. 0, tool's nonzero return,
 * or a negative code with e naming the file and the first bad record's
 * offset; the records before it were delivered.
 */
int psym_perfdata_run(struct psym_perfdata *d, const struct psym_perf_tool *tool, void *ud,
		      struct psym_err *e);

/*
 * The memory the time-order queue may take (records and their entries;
 * 0: PSYM_PERF_QUEUE_CAP). Past it, as perf's ordered events do, the
 * older half of the queue is delivered before its round ends.
 */
#define PSYM_PERF_QUEUE_CAP ((size_t)256 << 20)
void psym_perfdata_set_queue_cap(struct psym_perfdata *d, size_t bytes);

/* The name given when it was opened, for messages. */
const char *psym_perfdata_name(const struct psym_perfdata *d);
const struct psym_perf_info *psym_perfdata_info(const struct psym_perfdata *d);
const struct psym_perf_attr *psym_perfdata_attrs(const struct psym_perfdata *d, size_t *n);
const struct psym_perf_build_id *psym_perfdata_build_ids(const struct psym_perfdata *d, size_t *n);
void psym_perfdata_stats(const struct psym_perfdata *d, struct psym_perfdata_stats *s);

/* An event's name when the file names none: "cycles", "cpu-clock", ... or "raw-TYPE-CONFIG". */
void psym_perf_event_name(uint32_t type, uint64_t config, char *out, size_t n);

#endif
