/* Strict decoding of a DeschedulerPolicy, as upstream's scheme decodes it
 * (serializer.EnableStrict, for the policy and for each registered
 * plugin's args): a field that descheduler/v1alpha2 at v0.36 does not
 * have is an error, "strict decoding error: unknown field \"profiles[0].
 * foo\"", every unknown field of the object listed. */
#ifndef MOONSCHED_DESCHEDULER_STRICT_H
#define MOONSCHED_DESCHEDULER_STRICT_H

#include "moonsched/error.h"

typedef struct cJSON cJSON;

/* The unknown fields of the policy document (args excluded) at err, or
 * MS_OK. */
ms_rc ms_desched_strict_policy(const cJSON *root, ms_error *err);
/* The unknown fields of the args of the named plugin (DefaultEvictor or a
 * registered strategy; any other name: MS_OK), relative to args. */
ms_rc ms_desched_strict_args(const char *plugin, const cJSON *args, ms_error *err);

#endif
