/* A JSON document written as YAML, for what moonsched prints back in
 * Kubernetes' format (`config check`'s effective configuration). */
#ifndef MOONSCHED_CODEC_YAML_WRITE_H
#define MOONSCHED_CODEC_YAML_WRITE_H

#include <stdbool.h>
#include <stdio.h>

#include "moonsched/error.h"

typedef struct cJSON cJSON;

/* Writes a JSON document as YAML (block style, keys in document order,
 * strings quoted where YAML would read them as something else) or as
 * indented JSON. MS_EIO when the stream fails. */
ms_rc ms_yaml_write(const cJSON *doc, bool json, FILE *out);

#endif
