/* SPDX-License-Identifier: MIT */
/*
 * Go build IDs (buildid.h): Go's note read into the "go:" form, the GNU
 * note preferred when both are there, and hostile notes (a lying or huge
 * size, bytes that are not an ID's, a NUL inside, too long, another owner
 * or type) read as no build ID. The form never passes the hex check that
 * guards every path, store and cache key, and compares with case.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psym-int.h"
#include "tap.h"

/* What go tool buildid printed for a -s -w build of a small program. */
#define GOID "HJMXub0GVaCR-dma4zuP/jJFR4t0xgnpltsBzMBd-/WQaxzB87khMuj-qZlEYW/GMXqzkRBv4rDXF_uvh4a"

/* Append one note (owner padded with NULs to namesz) to buf at *len. */
static void note(unsigned char *buf, size_t *len, const char *owner, uint32_t namesz,
		 uint32_t descsz, uint32_t type, const void *desc, size_t desclen)
{
	uint32_t h[3] = { namesz, descsz, type };

	memcpy(buf + *len, h, sizeof(h));
	*len += sizeof(h);
	memset(buf + *len, 0, (namesz + 3) & ~3u);
	memcpy(buf + *len, owner, strlen(owner));
	*len += (namesz + 3) & ~3u;
	memset(buf + *len, 0, (desclen + 3) & ~3u);
	memcpy(buf + *len, desc, desclen);
	*len += (desclen + 3) & ~3u;
}

static int go_id(const char *desc, size_t desclen, uint32_t descsz, char out[])
{
	unsigned char buf[1024];
	size_t len = 0;

	note(buf, &len, "Go", 4, descsz, PSYM_NT_GO_BUILD_ID, desc, desclen);
	return psym_notes_go_build_id(buf, len, 4, false, out);
}

int main(void)
{
	static const char id[] = GOID;
	char out[PSYM_BUILD_ID_HEX_MAX], longid[300];
	unsigned char buf[1024];
	size_t len = 0;

	ok(go_id(id, strlen(id), (uint32_t)strlen(id), out) == 0 && !strcmp(out, "go:" GOID),
	   "Go's note (owner \"Go\" padded to 4): go: + the ID");
	ok(psym_build_id_is_go(out), "the form is recognised");
	ok(!psym_build_id_valid(out) && !psym_build_id_canonical(out),
	   "the form fails the hex check that guards paths and keys");
	ok(psym_notes_build_id(buf, 0, 4, false, out) == PSYM_NOENT, "no notes: no build ID");

	/* trailing NUL padding is dropped */
	ok(go_id("abc/def\0\0", 9, 9, out) == 0 && !strcmp(out, "go:abc/def"),
	   "trailing NULs dropped");
	/* hostile notes */
	ok(go_id(id, strlen(id), (uint32_t)strlen(id) + 9, out) == PSYM_NOENT, "lying size: none");
	ok(go_id(id, strlen(id), 0xfffffff0u, out) == PSYM_NOENT, "huge size: none");
	ok(go_id("ab\x01\xff\x1b[cd", 8, 8, out) == PSYM_NOENT, "control and high bytes: none");
	ok(go_id("abc\0def", 7, 7, out) == PSYM_NOENT, "a NUL inside: none");
	ok(go_id("", 0, 0, out) == PSYM_NOENT, "empty: none");
	memset(longid, 'A', sizeof(longid));
	ok(go_id(longid, PSYM_GO_BUILD_ID_MAX, PSYM_GO_BUILD_ID_MAX, out) == 0 &&
		   strlen(out) == sizeof(out) - 1,
	   "the longest accepted fills the buffer exactly");
	ok(go_id(longid, PSYM_GO_BUILD_ID_MAX + 1, PSYM_GO_BUILD_ID_MAX + 1, out) == PSYM_NOENT,
	   "one byte longer: none");

	/* another owner or type is not Go's build ID */
	len = 0;
	note(buf, &len, "Gx", 4, 3, PSYM_NT_GO_BUILD_ID, "abc", 3);
	note(buf, &len, "Go", 4, 3, 1, "abc", 3);
	note(buf, &len, "Go", 4, 3, PSYM_NT_GO_BUILD_ID, "abc", 3);
	buf[len - 4 - 4 + 3] = 'x'; /* "Go\0x": junk after the owner's NUL */
	ok(psym_notes_go_build_id(buf, len, 4, false, out) == PSYM_NOENT,
	   "another owner, another type, junk after the owner's NUL: none");

	/* GNU first: a file with both records its GNU build ID */
	len = 0;
	note(buf, &len, "Go", 4, 3, PSYM_NT_GO_BUILD_ID, "abc", 3);
	note(buf, &len, "GNU", 4, 4, 3, "\x12\x34\x56\x78", 4);
	ok(psym_notes_mapping_build_id(buf, len, 4, false, out) == 0 && !strcmp(out, "12345678"),
	   "GNU and Go notes: the GNU build ID");
	len = 0;
	note(buf, &len, "Go", 4, 3, PSYM_NT_GO_BUILD_ID, "abc", 3);
	ok(psym_notes_mapping_build_id(buf, len, 4, false, out) == 0 && !strcmp(out, "go:abc"),
	   "only Go's note: go:abc");
	ok(psym_notes_build_id(buf, len, 4, false, out) == PSYM_NOENT,
	   "the GNU reader does not take Go's note");

	ok(!psym_build_id_is_go("go:") && !psym_build_id_is_go("go:a b") &&
		   !psym_build_id_is_go("0123abcd") && !psym_build_id_is_go("GO:abc"),
	   "psym_build_id_is_go: empty, a space, hex, another prefix");
	ok(psym_build_id_equal("go:ab/Cd", "go:ab/Cd") &&
		   !psym_build_id_equal("go:ab/Cd", "go:ab/cd") &&
		   !psym_build_id_equal("go:abcd", "abcd") && psym_build_id_equal("ABcd", "abCD"),
	   "equal: Go IDs byte for byte (base64 has case), GNU IDs in any case");

	/* The key of a Go build ID (index store, answer cache) */
	{
		char k1[PSYM_BUILD_ID_HEX_MAX], k2[PSYM_BUILD_ID_HEX_MAX];

		ok(psym_go_build_id_key("go:ab/Cd", k1) == 0 && strlen(k1) == 36 &&
			   !strncmp(k1, "676f", 4) && psym_build_id_canonical(k1),
		   "key: 676f and 32 hex digits, a canonical build ID");
		ok(psym_go_build_id_key("go:ab/Cd", k2) == 0 && !strcmp(k1, k2) &&
			   psym_go_build_id_key("go:ab/cd", k2) == 0 && strcmp(k1, k2) != 0,
		   "key: the same for one ID, another for an ID of another case");
		ok(psym_go_build_id_key("ab/Cd", k2) == PSYM_NOENT &&
			   psym_go_build_id_key("go:", k2) == PSYM_NOENT &&
			   psym_go_build_id_key("go:a b", k2) == PSYM_NOENT &&
			   psym_go_build_id_key(NULL, k2) == PSYM_NOENT,
		   "key: none for what is not a Go build ID in the go: form");
	}
	return tap_failed ? 1 : 0;
}
