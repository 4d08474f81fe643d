/* SPDX-License-Identifier: MIT */
/*
 * Plain driver for the fuzz targets: feeds every file named on the command
 * line (directories are walked one level deep) to LLVMFuzzerTestOneInput,
 * so that `make check` replays each corpus under the normal and sanitizer
 * builds and a crash once found stays fixed. Built without libFuzzer.
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return 1;
	}
	do {
		if (len == cap) {
			unsigned char *nb;

			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return 1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;

			if (!d)
				return 1;
			while ((de = readdir(d))) {
				char p[4096];

				if (de->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
				bad |= run_file(p);
				files++;
			}
			closedir(d);
		} else {
			bad |= run_file(argv[i]);
			files++;
		}
	}
	printf("replayed %d inputs\n", files);
	return bad;
}
