/* SPDX-License-Identifier: MIT */
/* psym-collect's command line (options.h). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "ustack.h"

static const char usage_text[] =
	"Usage: psym-collect [OPTIONS] [-- COMMAND [ARGS]]\n"
	"Sample user and kernel stacks with BPF and write an unsymbolized pprof\n"
	"profile with mappings and build IDs, for `psym symbolize` elsewhere.\n\n"
	"  -p, --pid PID          profile this process and the processes it starts\n"
	"                         once sampling runs (repeatable, up to 16); stop\n"
	"                         when all -p processes have exited (children that\n"
	"                         outlive them are then sampled no longer); default:\n"
	"                         every process (system-wide)\n"
	"      --no-inherit       with -p: only these processes, not the processes\n"
	"                         they start\n"
	"  -F, --frequency HZ     samples per second per CPU (default 99)\n"
	"  -d, --duration SEC     stop after SEC seconds (default: at SIGINT/SIGTERM)\n"
	"  -o, --output FILE      profile to write (default cpu.pb.gz)\n"
	"      --format FMT       pprof (default) or otlp: OpenTelemetry profiles\n"
	"                         (opentelemetry-proto 1.10.0), raw, unsymbolized,\n"
	"                         attributes named as the OTel eBPF profiler does\n"
	"      --no-kernel        do not record kernel stacks\n"
	"      --no-user          do not record user stacks\n"
	"      --no-side-files    do not write FILE.d/ (kallsyms, vDSO, perf maps)\n"
	"      --kallsyms WHAT    subset (default): FILE.d/ keeps the kallsyms lines\n"
	"                         the profile's kernel addresses need, and psym names\n"
	"                         no other kernel address from it; full: the whole\n"
	"                         table (shared per boot), any kernel address\n"
	"                         answerable later\n"
	"      --stack-entries N  stack map size per buffer (default: from -F and the\n"
	"                         CPU count); raise it when the summary reports\n"
	"                         stack-map collisions\n"
	"      --count-entries N  counts map size per buffer (default: the same);\n"
	"                         raise it when samples are lost to a full counts map\n"
	"      --stack-copy BYTES copy the top BYTES (64..32768, e.g. 8192) of each\n"
	"                         sampled user stack and its registers into\n"
	"                         FILE.d/ustacks.gz (mode 0600: raw stack bytes can\n"
	"                         hold secrets) for psym to unwind with the\n"
	"                         binaries' CFI: for code without frame pointers\n"
	"      --no-mmap-track    read each process's maps from /proc only (a process\n"
	"                         that exits before a drain then loses its mappings)\n"
	"      --max-procs N      processes whose mappings are recorded as they are\n"
	"                         made, at once (default 16384)\n"
	"      --mmap-pages N     ring buffer pages per CPU for those records (a power\n"
	"                         of two, default 64); raise it when the summary\n"
	"                         reports lost mmap records\n"
	"      --archive          also pack every binary and debug file the profile's\n"
	"                         mappings name (by build ID, from the processes' own\n"
	"                         view: other mount namespaces too) into OUT without\n"
	"                         .pb.gz, plus .tar.zst, for `psym symbolize\n"
	"                         --debug-pkg` where the binaries are not\n"
	"      --exclude-path P   with --archive: leave out mappings under P\n"
	"                         (repeatable, e.g. /usr)\n"
	"      --rotate DURATION  write one complete profile per window of DURATION\n"
	"                         (e.g. 10m; units ms, s, m, h; at least 100ms) until\n"
	"                         SIGINT/SIGTERM (which finish the window); -o is\n"
	"                         then a strftime pattern in UTC (default\n"
	"                         cpu-%Y%m%dT%H%M%SZ.pb.gz); SIGHUP ends a window early\n"
	"      --keep N           with --rotate: keep the newest N windows' files\n"
	"      --max-disk SIZE    with --rotate: remove the oldest windows' files (and\n"
	"                         side directories) beyond SIZE bytes (K, M, G)\n"
	"  -- COMMAND [ARGS]      run COMMAND and profile it and the processes it\n"
	"                         starts, until it exits; exit with its status\n"
	"                         (128+N when killed by signal N)\n"
	"  -v, --verbose          report progress and a few examples of what was lost\n"
	"  -h, --help             show this help\n"
	"      --version          show the version\n\n"
	"Exit status: 0 success; 2 usage error (or no such -p process); 3 system\n"
	"failure (BPF, I/O); with a COMMAND, its exit status when all went well.\n";

/* One line, as every error: what is wrong, then where help is. */
static void die_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "psym-collect: %s%s%s%s (see 'psym-collect --help')\n", msg,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	exit(PSYM_EXIT_BADINPUT);
}

/* A whole number in [lo, hi], or a usage error naming the option and its range. */
static long parse_long(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr,
			"psym-collect: invalid %s '%s': a whole number from %ld to %ld (see "
			"'psym-collect --help')\n",
			what, s, lo, hi);
		exit(PSYM_EXIT_BADINPUT);
	}
	return v;
}

/* --rotate's DURATION: a number with ms, s (default), m or h; 100 ms to 7 days. */
static int64_t parse_duration(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 }, { "m", 60e9 }, { "h", 3600e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!errno && end != s && v > 0)
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].unit) && v * units[i].ns >= 1e8 &&
			    v * units[i].ns <= 7 * 86400e9)
				return (int64_t)(v * units[i].ns);
	die_usage("invalid --rotate DURATION (100ms to 7 days, e.g. 10m, 1h)", s);
	return 0;
}

/* getopt_long returned '?' (its own message is off: opterr = 0). */
static void die_bad_option(char **argv, const char *shortopts)
{
	char msg[200];

	psym_bad_option_text(msg, sizeof(msg), argv, shortopts);
	die_usage(msg, NULL);
}

/*
 * The options that do not fit together, as usage errors (exit 2); the
 * default -o of --rotate (a pattern) when none was given.
 */
static void check_options(struct opts *o, bool out_given)
{
	if (o->cmd && o->npids)
		die_usage("-p and a COMMAND exclude each other", NULL);
	if (o->no_inherit && !o->npids)
		die_usage("--no-inherit applies to -p", NULL);
	if ((o->keep || o->max_disk) && !o->rotate_ns)
		die_usage("--keep and --max-disk apply to --rotate", NULL);
	if (o->rotate_ns && o->cmd)
		die_usage("--rotate and a COMMAND exclude each other", NULL);
	if (o->rotate_ns && !out_given)
		o->out = "cpu-%Y%m%dT%H%M%SZ.pb.gz";
	if (o->no_kernel && o->no_user)
		die_usage("--no-kernel and --no-user leave nothing to record", NULL);
	if (o->nexclude && !o->archive)
		die_usage("--exclude-path applies to --archive", NULL);
	if (o->no_user && o->stack_copy)
		die_usage("--stack-copy copies user stacks: not with --no-user", NULL);
}

void collect_options(int argc, char **argv, struct opts *o)
{
	enum {
		O_NO_KERNEL = 1000,
		O_NO_USER,
		O_NO_SIDE,
		O_KALLSYMS,
		O_STACKS,
		O_COUNTS,
		O_STACK_COPY,
		O_ARCHIVE,
		O_EXCLUDE,
		O_NO_TRACK,
		O_MAX_PROCS,
		O_MMAP_PAGES,
		O_ROTATE,
		O_KEEP,
		O_MAX_DISK,
		O_NO_INHERIT,
		O_VERSION,
		O_FORMAT
	};
	static const struct option lo[] = { { "pid", required_argument, NULL, 'p' },
					    { "frequency", required_argument, NULL, 'F' },
					    { "duration", required_argument, NULL, 'd' },
					    { "output", required_argument, NULL, 'o' },
					    { "no-kernel", no_argument, NULL, O_NO_KERNEL },
					    { "no-user", no_argument, NULL, O_NO_USER },
					    { "no-side-files", no_argument, NULL, O_NO_SIDE },
					    { "kallsyms", required_argument, NULL, O_KALLSYMS },
					    { "stack-entries", required_argument, NULL, O_STACKS },
					    { "count-entries", required_argument, NULL, O_COUNTS },
					    { "stack-copy", required_argument, NULL, O_STACK_COPY },
					    { "archive", no_argument, NULL, O_ARCHIVE },
					    { "no-mmap-track", no_argument, NULL, O_NO_TRACK },
					    { "max-procs", required_argument, NULL, O_MAX_PROCS },
					    { "mmap-pages", required_argument, NULL, O_MMAP_PAGES },
					    { "exclude-path", required_argument, NULL, O_EXCLUDE },
					    { "rotate", required_argument, NULL, O_ROTATE },
					    { "keep", required_argument, NULL, O_KEEP },
					    { "max-disk", required_argument, NULL, O_MAX_DISK },
					    { "no-inherit", no_argument, NULL, O_NO_INHERIT },
					    { "format", required_argument, NULL, O_FORMAT },
					    { "verbose", no_argument, NULL, 'v' },
					    { "help", no_argument, NULL, 'h' },
					    { "version", no_argument, NULL, O_VERSION },
					    { 0 } };
	bool out_given = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->hz = 99;
	o->out = "cpu.pb.gz";
	o->max_procs = 16384;
	o->mmap_pages = 64;
	opterr = 0;
	/* "+": options end at the first word of the command. */
	while ((c = getopt_long(argc, argv, "+p:F:d:o:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o->npids == PSYM_MAX_PIDS)
				die_usage("too many -p options (at most 16)", NULL);
			o->pids[o->npids++] = (int)parse_long(optarg, 1, 4194304, "PID");
			break;
		case 'F': o->hz = parse_long(optarg, 1, 100000, "frequency (-F)"); break;
		case 'd':
			o->duration =
				(double)parse_long(optarg, 1, 86400 * 7, "duration (-d, seconds)");
			break;
		case 'o':
			o->out = optarg;
			out_given = true;
			break;
		case O_NO_KERNEL: o->no_kernel = true; break;
		case O_NO_USER: o->no_user = true; break;
		case O_NO_SIDE: o->no_side_files = true; break;
		case O_FORMAT:
			if (strcmp(optarg, "pprof") && strcmp(optarg, "otlp"))
				die_usage("--format takes pprof or otlp, not", optarg);
			o->otlp = !strcmp(optarg, "otlp");
			break;
		case O_KALLSYMS:
			if (strcmp(optarg, "subset") && strcmp(optarg, "full"))
				die_usage("--kallsyms takes subset or full, not", optarg);
			o->kallsyms_full = !strcmp(optarg, "full");
			break;
		case O_STACKS:
			o->stack_entries = parse_long(optarg, 1024, 1 << 22, "--stack-entries");
			break;
		case O_COUNTS:
			o->count_entries = parse_long(optarg, 1024, 1 << 22, "--count-entries");
			break;
		case O_STACK_COPY:
			o->stack_copy = parse_long(optarg, 64, PSYM_USTACK_MAX, "--stack-copy");
			break;
		case O_ARCHIVE: o->archive = true; break;
		case O_NO_TRACK: o->no_track = true; break;
		case O_MAX_PROCS:
			o->max_procs = parse_long(optarg, 64, 1 << 22, "--max-procs");
			break;
		case O_MMAP_PAGES:
			o->mmap_pages = parse_long(optarg, 1, 1 << 16, "--mmap-pages");
			if (o->mmap_pages & (o->mmap_pages - 1))
				die_usage("--mmap-pages must be a power of two", optarg);
			break;
		case O_EXCLUDE:
			if (o->nexclude == MAX_EXCLUDES)
				die_usage("too many --exclude-path options (at most 64)", NULL);
			if (!*optarg)
				die_usage("empty --exclude-path", NULL);
			o->exclude[o->nexclude++] = optarg;
			break;
		case O_ROTATE: o->rotate_ns = parse_duration(optarg); break;
		case O_KEEP: o->keep = parse_long(optarg, 1, 1000000, "--keep"); break;
		case O_MAX_DISK: {
			unsigned long long v;

			if (!psym_parse_size(optarg, &v))
				die_usage("invalid --max-disk (a size such as 500M)", optarg);
			o->max_disk = v;
			break;
		}
		case O_NO_INHERIT: o->no_inherit = true; break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case O_VERSION: printf("psym-collect %s\n", PACKAGE_VERSION); exit(0);
		default: die_bad_option(argv, "p:F:d:o:vh");
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	check_options(o, out_given);
}
