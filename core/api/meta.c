/* ObjectMeta helpers: the controller among the owner references. */
#include "moonsched/meta.h"

#include <stddef.h>

const ms_owner_ref *ms_meta_controller(const ms_object_meta *m) {
    for (uint32_t i = 0; i < m->nowners; i++)
        if (m->owners[i].controller) return &m->owners[i];
    return NULL;
}
