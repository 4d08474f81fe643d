/* SPDX-License-Identifier: MIT */
/*
 * OpenTelemetry profiles (OTLP, opentelemetry-proto 1.10.0's
 * profiles/v1development, proto/otlp_profiles.proto): read a ProfilesData or
 * an ExportProfilesServiceRequest (binary protobuf or OTLP/JSON), turn it
 * into a pprof profile, and write it back with the symbolizer's functions
 * and lines in its dictionary, every other field kept.
 *
 * The decoded message lives in its own arena (struct psym_otlp); the pprof
 * profile made from it is the caller's. Pprof location id i is the OTLP
 * location_table[i], so the symbolized lines go back to the entry they came
 * from (psym_otlp_write).
 *
 * Layer 3 (input): uses the pprof builder only.
 */
#ifndef PSYM_OTLP_H
#define PSYM_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof.h"
#include "proto/otlp_profiles.pb-c.h"

#define PSYM_OTLP_VERSION "1.10.0"
#define PSYM_OTLP_READS "psym reads OTLP profiles of opentelemetry-proto " PSYM_OTLP_VERSION

/* Deepest nesting of messages (AnyValue arrays and lists) a file may have. */
#define PSYM_OTLP_MAX_DEPTH 32

typedef Opentelemetry__Proto__Profiles__V1development__ProfilesData otlp_data;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary otlp_dict;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles otlp_rprof;
typedef Opentelemetry__Proto__Profiles__V1development__ScopeProfiles otlp_sprof;
typedef Opentelemetry__Proto__Profiles__V1development__Profile otlp_profile;
typedef Opentelemetry__Proto__Profiles__V1development__Sample otlp_sample;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping otlp_mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Location otlp_location;
typedef Opentelemetry__Proto__Profiles__V1development__Line otlp_line;
typedef Opentelemetry__Proto__Profiles__V1development__Function otlp_function;
typedef Opentelemetry__Proto__Profiles__V1development__Stack otlp_stack;
typedef Opentelemetry__Proto__Profiles__V1development__Link otlp_link;
typedef Opentelemetry__Proto__Profiles__V1development__ValueType otlp_vtype;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit otlp_attr;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValue otlp_kv;
typedef Opentelemetry__Proto__Profiles__V1development__AnyValue otlp_any;
typedef Opentelemetry__Proto__Profiles__V1development__Resource otlp_resource;
typedef Opentelemetry__Proto__Profiles__V1development__InstrumentationScope otlp_scope;

/* AnyValue's cases: OTLP_ANY(STRING_VALUE), ... */
#define OTLP_ANY(x) OPENTELEMETRY__PROTO__PROFILES__V1DEVELOPMENT__ANY_VALUE__VALUE_##x

/* A decoded OTLP message and the arena that holds it. */
struct psym_otlp {
	struct psym_arena arena;
	otlp_data *msg;
	bool json; /* read from OTLP/JSON */
};

/*
 * Whether buf looks like OTLP profiles: protobuf whose top-level fields are
 * ProfilesData's and parse as such (bounded depth), with a dictionary or a
 * profile; or a JSON object with "resourceProfiles". No allocation.
 */
bool psym_otlp_sniff(const unsigned char *buf, size_t len);

/*
 * Binary protobuf: its structure checked (depth, wire types) without
 * allocating; need_profiles (sniffing): only ProfilesData's fields at the
 * top, and only the first three levels looked at.
 */
bool psym_otlp_wire_ok(const unsigned char *buf, size_t len, bool need_profiles);

/*
 * Decode buf (binary or JSON) and check every index against the dictionary
 * (a file of another version fails here, naming the version psym reads).
 * *out: psym_otlp_free().
 */
int psym_otlp_decode(const unsigned char *buf, size_t len, const char *name,
		     const struct psym_limits *lim, struct psym_otlp **out, struct psym_err *e);

/* OTLP/JSON (protojson) into o->msg; called by psym_otlp_decode. */
int psym_otlp_json_parse(const unsigned char *buf, size_t len, const char *name,
			 struct psym_otlp *o, struct psym_err *e);

/* Every index of o->msg inside its table, stacks and sizes within caps. */
int psym_otlp_check(const struct psym_otlp *o, const char *name, struct psym_err *e);

/*
 * The pprof profile of every profile in o (all resources and scopes): one
 * sample type per distinct (type, unit), one pprof sample per value point
 * (its timestamp a numeric label "timestamp", unit "nanoseconds"),
 * attributes of the resource, scope, profile and sample as labels.
 */
int psym_otlp_to_profile(const struct psym_otlp *o, const char *name, const struct psym_limits *lim,
			 struct psym_profile **out, struct psym_err *e);

/*
 * Write o to fp as binary OTLP, with p's lines (p: made by
 * psym_otlp_to_profile from o, then symbolized) put into the locations that
 * had none. o itself is not changed.
 */
int psym_otlp_write(const struct psym_otlp *o, const struct psym_profile *p, FILE *fp,
		    const char *name, struct psym_err *e);

enum {
	/*
	 * psym-collect's labels under the OTel eBPF profiler's names: pid as
	 * process.pid, tid as thread.id, comm as thread.name.
	 */
	PSYM_OTLP_OTEL_NAMES = 1 << 0,
};

/*
 * An OTLP message of pprof profile p: one Profile per sample type; build
 * IDs as the process.executable.build_id.gnu, .go or .htlhash attribute.
 * flags: PSYM_OTLP_*.
 */
int psym_otlp_from_profile(const struct psym_profile *p, const struct psym_limits *lim,
			   unsigned flags, struct psym_otlp **out, struct psym_err *e);

/* Encode o->msg as binary protobuf to fp. */
int psym_otlp_encode_fp(const struct psym_otlp *o, FILE *fp, const char *name, struct psym_err *e);

void psym_otlp_free(struct psym_otlp *o);

struct psym_input;

/*
 * p (in's profile, symbolized) as OTLP to fp: in's message written back
 * when in was OTLP (psym_otlp_write), else p converted
 * (psym_otlp_from_profile). Raw protobuf.
 */
int psym_otlp_write_input(const struct psym_input *in, const struct psym_profile *p,
			  const struct psym_limits *lim, FILE *fp, const char *name,
			  struct psym_err *e);

#endif
