/* KubeSchedulerConfiguration loading on arbitrary JSON. Beyond not crashing
 * or leaking, checks what the framework relies on: a failed load leaves an
 * empty config and a message; a loaded one has valid indexes, `points` that
 * match the per-point lists, explicit points among them, weights >= 1,
 * unique profile names, and passes validation. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "moonsched/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) \
    do { \
        if (!(c)) __builtin_trap(); \
    } while (0)

static void ignore(void *ctx, const char *msg) {
    (void)ctx;
    CHECK(msg && msg[0]);
}

static void check_profile(const ms_profile_config *p) {
    CHECK(p->scheduler_name[0] != '\0');
    CHECK(p->nplugins <= MS_MAX_PLUGINS);
    uint32_t seen[MS_MAX_PLUGINS] = {0};
    for (int ep = 0; ep < MS_EP_COUNT; ep++) {
        CHECK(p->norder[ep] <= p->nplugins);
        for (uint32_t i = 0; i < p->norder[ep]; i++) {
            uint8_t idx = p->order[ep][i];
            CHECK(idx < p->nplugins);
            CHECK(!(seen[idx] & (1u << ep)));   /* once per point */
            seen[idx] |= 1u << ep;
        }
    }
    for (uint32_t i = 0; i < p->nplugins; i++) {
        const ms_plugin_config *pc = &p->plugins[i];
        CHECK(pc->name[0] != '\0');
        CHECK(pc->points == seen[i] && pc->points != 0);
        CHECK((pc->explicit_points & ~pc->points) == 0);
        CHECK(pc->weight >= 1);
        for (uint32_t k = 0; k < i; k++) CHECK(strcmp(p->plugins[k].name, pc->name) != 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    if (!root) return 0;
    ms_config c;
    ms_error err = {0};
    ms_rc rc = ms_config_load_json(&c, root, "fuzz.json", ignore, NULL, &err);
    cJSON_Delete(root);
    if (rc != MS_OK) {
        CHECK((rc == MS_EINVAL || rc == MS_ENOMEM) && err.msg[0] != '\0');
        CHECK(c.nprofiles == 0 && c.profiles == NULL);
        return 0;
    }
    CHECK(c.nprofiles >= 1);
    CHECK(ms_config_validate(&c, &err) == MS_OK);
    for (uint32_t i = 0; i < c.nprofiles; i++) {
        check_profile(&c.profiles[i]);
        CHECK(ms_config_profile(&c, c.profiles[i].scheduler_name) == &c.profiles[i]);
    }
    ms_config_free(&c);
    return 0;
}
