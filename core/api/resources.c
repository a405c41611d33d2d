/* Resource lists: built-in and scalar resources by name, copies, sums and differences. */
#include "moonsched/resources.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"

static const char *const builtin_names[MS_RES_NBUILTIN] = {
    [MS_RES_CPU] = "cpu",
    [MS_RES_MEMORY] = "memory",
    [MS_RES_EPHEMERAL] = "ephemeral-storage",
    [MS_RES_PODS] = "pods",
};

void ms_resource_names_init(ms_resource_names *rn, ms_interner *in) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++) rn->builtin[i] = ms_intern_cstr(in, builtin_names[i]);
}

int ms_resource_builtin_index(const ms_resource_names *rn, ms_str name) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++)
        if (rn->builtin[i] == name) return i;
    return -1;
}

static bool has_prefix(const char *s, const char *p) {
    return strncmp(s, p, strlen(p)) == 0;
}

bool ms_resource_is_scalar_name(const char *name) {
    if (has_prefix(name, "hugepages-") || has_prefix(name, "attachable-volumes-")) return true;
    if (strstr(name, "kubernetes.io/")) return true;   /* prefixed native resource */
    /* Extended resource: not native (native names have no "/" or are in
     * kubernetes.io/), and not a quota-style "requests." name. */
    return strchr(name, '/') != NULL && !has_prefix(name, "requests.");
}

static uint32_t scalar_lower_bound(const ms_resources *r, ms_str name) {
    uint32_t lo = 0, hi = r->nscalar;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->scalar[mid].name < name) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int64_t ms_resources_scalar(const ms_resources *r, ms_str name) {
    uint32_t i = scalar_lower_bound(r, name);
    return i < r->nscalar && r->scalar[i].name == name ? r->scalar[i].value : 0;
}

int64_t ms_resources_get(const ms_resources *r, const ms_resource_names *rn, ms_str name) {
    int b = ms_resource_builtin_index(rn, name);
    return b >= 0 ? r->v[b] : ms_resources_scalar(r, name);
}

int ms_resources_set_scalar(ms_resources *r, ms_str name, int64_t value) {
    if (r->cap == 0 && r->nscalar != 0) return -1;   /* arena-owned: read-only */
    uint32_t i = scalar_lower_bound(r, name);
    if (i < r->nscalar && r->scalar[i].name == name) {
        r->scalar[i].value = value;
        return 0;
    }
    if (!ms_array_grow((void **)&r->scalar, &r->cap, r->nscalar + 1, sizeof *r->scalar))
        return -1;
    memmove(&r->scalar[i + 1], &r->scalar[i], (r->nscalar - i) * sizeof *r->scalar);
    r->scalar[i].name = name;
    r->scalar[i].value = value;
    r->nscalar++;
    return 0;
}

int ms_resources_add(ms_resources *dst, const ms_resources *src) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++) dst->v[i] += src->v[i];
    for (uint32_t i = 0; i < src->nscalar; i++) {
        ms_str name = src->scalar[i].name;
        if (ms_resources_set_scalar(dst, name, ms_resources_scalar(dst, name) + src->scalar[i].value) != 0)
            return -1;
    }
    return 0;
}

void ms_resources_sub(ms_resources *dst, const ms_resources *src) {
    for (int i = 0; i < MS_RES_NBUILTIN; i++) dst->v[i] -= src->v[i];
    for (uint32_t i = 0; i < src->nscalar; i++) {
        uint32_t j = scalar_lower_bound(dst, src->scalar[i].name);
        if (j < dst->nscalar && dst->scalar[j].name == src->scalar[i].name)
            dst->scalar[j].value -= src->scalar[i].value;
    }
}

int ms_resources_copy(ms_resources *dst, const ms_resources *src) {
    memcpy(dst->v, src->v, sizeof dst->v);
    dst->nscalar = 0;
    if (src->nscalar > dst->cap) {
        if (dst->cap == 0 && dst->scalar) return -1;   /* arena-owned destination */
        ms_scalar *s = realloc(dst->scalar, src->nscalar * sizeof *s);
        if (!s) return -1;
        dst->scalar = s;
        dst->cap = src->nscalar;
    }
    if (src->nscalar) memcpy(dst->scalar, src->scalar, src->nscalar * sizeof *src->scalar);
    dst->nscalar = src->nscalar;
    return 0;
}

bool ms_resources_equal(const ms_resources *a, const ms_resources *b) {
    if (memcmp(a->v, b->v, sizeof a->v) != 0 || a->nscalar != b->nscalar) return false;
    for (uint32_t i = 0; i < a->nscalar; i++)
        if (a->scalar[i].name != b->scalar[i].name || a->scalar[i].value != b->scalar[i].value)
            return false;
    return true;
}

void ms_resources_clear(ms_resources *r) {
    memset(r->v, 0, sizeof r->v);
    r->nscalar = 0;
}

void ms_resources_free(ms_resources *r) {
    if (r->cap) free(r->scalar);
    memset(r, 0, sizeof *r);
}
