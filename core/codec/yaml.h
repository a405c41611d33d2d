/* What the strict decoders (the scheduler's configuration, the descheduler's
 * policy) need to know of a YAML parse error. */
#ifndef MOONSCHED_CODEC_YAML_H
#define MOONSCHED_CODEC_YAML_H

#include <stdbool.h>

#include "moonsched/error.h"

/* Whether ms_yaml_parse failed on a mapping key given twice. Its message
 * is yaml.v2's, "yaml: unmarshal errors:\n  line 3: key \"a\" already set
 * in map", which upstream's strict decoding wraps ("strict decoding
 * error: yaml: ..."), where other syntax errors are not strict ones. */
bool ms_yaml_duplicate_key(const ms_error *err);

#endif
