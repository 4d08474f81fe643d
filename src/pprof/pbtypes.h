/* SPDX-License-Identifier: MIT */
/*
 * Short C names for the messages of profile.proto (protobuf-c's generated
 * code): what the profile core (pprof.h) and the packer (pprofpack.h) both
 * speak, so that the packer needs nothing of the core that calls it.
 */
#ifndef PSYM_PBTYPES_H
#define PSYM_PBTYPES_H

#include "proto/profile.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

#endif
