/* SPDX-License-Identifier: MIT */
/*
 * Lower bound for "reading all of a file's DWARF": inflate every compressed
 * .debug_* section (SHF_COMPRESSED, zlib) once with zlib and once with
 * libdeflate, and print the time each took. bench/run compares psym's time
 * for a few sampled addresses with these.
 *
 *   cc -O2 -o inflate-all inflate-all.c -lelf -lz -ldeflate
 *   inflate-all FILE
 */
#include <fcntl.h>
#include <gelf.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Returns the inflated size, 0 on failure. */
static size_t inflate_one(int use_deflate, const unsigned char *z, size_t zlen, size_t size)
{
	unsigned char *out = malloc(size ? size : 1);
	size_t got = 0;

	if (!out)
		return 0;
	if (use_deflate) {
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();

		if (!d ||
		    libdeflate_zlib_decompress(d, z, zlen, out, size, &got) != LIBDEFLATE_SUCCESS)
			got = 0;
		libdeflate_free_decompressor(d);
	} else {
		uLongf n = size;

		if (uncompress(out, &n, z, zlen) == Z_OK)
			got = n;
	}
	free(out);
	return got;
}

int main(int argc, char **argv)
{
	double t[2] = { 0, 0 };
	size_t total = 0, nsec = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: inflate-all FILE\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		fprintf(stderr, "inflate-all: cannot read '%s' as ELF\n", argv[1]);
		return 1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *raw;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7) != 0 || !(raw = elf_rawdata(scn, NULL)) ||
		    gelf_getchdr(scn, &ch) == NULL || ch.ch_type != ELFCOMPRESS_ZLIB)
			continue;
		for (int k = 0; k < 2; k++) {
			const unsigned char *z =
				(const unsigned char *)raw->d_buf + sizeof(Elf64_Chdr);
			size_t zlen = raw->d_size - sizeof(Elf64_Chdr);
			double t0 = now();

			if (inflate_one(k, z, zlen, ch.ch_size) != ch.ch_size) {
				fprintf(stderr, "inflate-all: '%s': %s does not inflate\n", argv[1],
					name);
				return 1;
			}
			t[k] += now() - t0;
		}
		total += ch.ch_size;
		nsec++;
	}
	printf("sections\t%zu\ninflated_mb\t%.1f\nzlib_s\t%.3f\nlibdeflate_s\t%.3f\n", nsec,
	       (double)total / 1e6, t[0], t[1]);
	elf_end(elf);
	close(fd);
	return 0;
}
