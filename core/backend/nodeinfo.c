/* NodeInfo: a node and what its bound and assumed pods use. */
#include "moonsched/nodeinfo.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "moonsched/error.h"

ms_node_info *ms_node_info_new(ms_str name) {
    ms_node_info *ni = calloc(1, sizeof *ni);
    if (!ni) return NULL;
    ni->name = name;
    return ni;
}

void ms_node_info_free(ms_node_info *ni) {
    if (!ni) return;
    if (!ni->borrowed) {
        for (uint32_t i = 0; i < ni->npods; i++) ms_pod_unref(ni->pods[i]);
        ms_node_unref(ni->node);
    }
    free(ni->pods);
    free(ni->pod_uids);
    free(ni->ports);
    free(ni->images);
    ms_resources_free(&ni->requested);
    free(ni);
}

int ms_node_info_copy_into(ms_node_info *dst, const ms_node_info *src) {
    dst->borrowed = true;
    dst->name = src->name;
    dst->node = src->node;
    dst->generation = src->generation;
    dst->npods_with_affinity = src->npods_with_affinity;
    dst->npods_with_required_anti_affinity = src->npods_with_required_anti_affinity;
    dst->non_zero_cpu = src->non_zero_cpu;
    dst->non_zero_mem = src->non_zero_mem;
    /* podcap covers both parallel arrays: grow pod_uids first so that a
     * failure between the two never leaves podcap larger than either. */
    if (src->npods > dst->podcap) {
        uint32_t cap = dst->podcap;
        if (!ms_array_grow((void **)&dst->pod_uids, &cap, src->npods, sizeof *dst->pod_uids)) goto fail;
        void *p = realloc(dst->pods, (size_t)cap * sizeof *dst->pods);
        if (!p) goto fail;
        dst->pods = p;
        dst->podcap = cap;
    }
    if (src->npods) {
        memcpy(dst->pods, src->pods, src->npods * sizeof *src->pods);
        memcpy(dst->pod_uids, src->pod_uids, src->npods * sizeof *src->pod_uids);
    }
    dst->npods = src->npods;
    if (!ms_array_grow((void **)&dst->ports, &dst->portcap, src->nports, sizeof *dst->ports))
        goto fail;
    if (src->nports) memcpy(dst->ports, src->ports, src->nports * sizeof *src->ports);
    dst->nports = src->nports;
    if (!ms_array_grow((void **)&dst->images, &dst->imagecap, src->nimages, sizeof *dst->images))
        goto fail;
    if (src->nimages) memcpy(dst->images, src->images, src->nimages * sizeof *src->images);
    dst->nimages = src->nimages;
    if (ms_resources_copy(&dst->requested, &src->requested) != 0) goto fail;
    return 0;
fail:
    /* Never leave counts pointing past what was copied. */
    dst->npods = dst->nports = dst->nimages = 0;
    ms_resources_clear(&dst->requested);
    dst->generation = 0;
    return -1;
}

void ms_node_info_set_node(ms_node_info *ni, ms_node *node) {
    if (node == ni->node) return;
    if (!ni->borrowed) {
        if (node) ms_node_ref(node);
        ms_node_unref(ni->node);
    }
    ni->node = node;
}

static ms_str port_ip(const ms_host_port *hp, ms_str wildcard) {
    return hp->host_ip == MS_STR_NONE ? wildcard : hp->host_ip;
}

static ms_str wildcard_of(const ms_pod *pod, ms_interner *in) {
    /* Interning takes a lock: only pay for it when the pod has host ports. */
    return pod->nhost_ports && in ? ms_intern_cstr(in, "0.0.0.0") : MS_STR_NONE;
}

static int32_t find_port(const ms_node_info *ni, ms_str ip, uint8_t protocol, int32_t port) {
    for (uint32_t i = 0; i < ni->nports; i++) {
        const ms_used_port *u = &ni->ports[i];
        if (u->port == port && u->protocol == protocol && u->ip == ip) return (int32_t)i;
    }
    return -1;
}

/* Ports are refcounted per pod, so that two pods on one (ip, protocol, port)
 * (possible when the informer reports what another scheduler placed) do not
 * lose the entry when the first one leaves. */
static int add_ports(ms_node_info *ni, const ms_pod *pod, ms_str wildcard) {
    for (uint32_t i = 0; i < pod->nhost_ports; i++) {
        const ms_host_port *hp = &pod->host_ports[i];
        if (hp->port <= 0) continue;
        ms_str ip = port_ip(hp, wildcard);
        int32_t j = find_port(ni, ip, hp->protocol, hp->port);
        if (j >= 0) {
            ni->ports[j].count++;
            continue;
        }
        if (!ms_array_grow((void **)&ni->ports, &ni->portcap, ni->nports + 1, sizeof *ni->ports))
            return -1;
        ni->ports[ni->nports++] = (ms_used_port){.ip = ip, .protocol = hp->protocol, .port = hp->port, .count = 1};
    }
    return 0;
}

static void remove_ports(ms_node_info *ni, const ms_pod *pod, ms_str wildcard) {
    for (uint32_t i = 0; i < pod->nhost_ports; i++) {
        const ms_host_port *hp = &pod->host_ports[i];
        if (hp->port <= 0) continue;
        int32_t j = find_port(ni, port_ip(hp, wildcard), hp->protocol, hp->port);
        if (j < 0) continue;
        if (--ni->ports[j].count == 0) ni->ports[j] = ni->ports[--ni->nports];
    }
}

bool ms_node_info_port_conflict(const ms_node_info *ni, const ms_host_port *hp, ms_str wildcard) {
    if (hp->port <= 0) return false;
    ms_str ip = port_ip(hp, wildcard);
    for (uint32_t i = 0; i < ni->nports; i++) {
        const ms_used_port *u = &ni->ports[i];
        if (u->port != hp->port || u->protocol != hp->protocol) continue;
        if (ip == wildcard || u->ip == wildcard || u->ip == ip) return true;
    }
    return false;
}

/* Everything but the requested resources, which can fail to grow. */
static void account(ms_node_info *ni, const ms_pod *pod, int sign) {
    ni->requested.v[MS_RES_PODS] += sign;
    ni->non_zero_cpu += sign * pod->non_zero_cpu;
    ni->non_zero_mem += sign * pod->non_zero_mem;
    if (ms_pod_has_affinity(pod)) ni->npods_with_affinity += (uint32_t)sign;
    if (pod->pod_anti_affinity.nrequired) ni->npods_with_required_anti_affinity += (uint32_t)sign;
}

/* Makes room for every scalar the pod requests (a zero entry is harmless),
 * so that the add itself cannot fail half-way. */
static int reserve_scalars(ms_resources *r, const ms_resources *add) {
    for (uint32_t i = 0; i < add->nscalar; i++) {
        ms_str name = add->scalar[i].name;
        if (ms_resources_set_scalar(r, name, ms_resources_scalar(r, name)) != 0) return -1;
    }
    return 0;
}

int ms_node_info_add_pod(ms_node_info *ni, ms_pod *pod, ms_interner *in) {
    if (ni->npods == ni->podcap) {
        uint32_t cap = ni->podcap;
        if (!ms_array_grow((void **)&ni->pod_uids, &cap, ni->npods + 1, sizeof *ni->pod_uids)) return -1;
        void *p = realloc(ni->pods, (size_t)cap * sizeof *ni->pods);
        if (!p) return -1;
        ni->pods = p;
        ni->podcap = cap;
    }
    if (reserve_scalars(&ni->requested, &pod->requests) != 0) return -1;
    ms_str wildcard = wildcard_of(pod, in);
    if (add_ports(ni, pod, wildcard) != 0) {
        remove_ports(ni, pod, wildcard);   /* undoes the ones that were added */
        return -1;
    }
    ms_resources_add(&ni->requested, &pod->requests);   /* cannot fail now */
    account(ni, pod, +1);
    ni->pods[ni->npods] = ni->borrowed ? pod : ms_pod_ref(pod);
    ni->pod_uids[ni->npods] = pod->meta.uid_hash;
    ni->npods++;
    return 0;
}

int32_t ms_node_info_find_pod(const ms_node_info *ni, uint64_t uid_hash) {
    for (uint32_t i = 0; i < ni->npods; i++)
        if (ni->pod_uids[i] == uid_hash) return (int32_t)i;
    return -1;
}

ms_pod *ms_node_info_take_pod(ms_node_info *ni, uint64_t uid_hash, ms_interner *in) {
    int32_t i = ms_node_info_find_pod(ni, uid_hash);
    if (i < 0) return NULL;
    ms_pod *p = ni->pods[i];
    /* upstream's order: the last pod fills the hole. */
    ni->npods--;
    ni->pods[i] = ni->pods[ni->npods];
    ni->pod_uids[i] = ni->pod_uids[ni->npods];
    ms_resources_sub(&ni->requested, &p->requests);
    account(ni, p, -1);
    remove_ports(ni, p, wildcard_of(p, in));
    return p;
}

int ms_node_info_remove_pod(ms_node_info *ni, const ms_pod *pod, ms_interner *in) {
    ms_pod *p = ms_node_info_take_pod(ni, pod->meta.uid_hash, in);
    if (!p) return MS_ENOENT;
    if (!ni->borrowed) ms_pod_unref(p);
    return 0;
}

int ms_node_info_set_images(ms_node_info *ni, const ms_image_state *images, uint32_t n) {
    if (!ms_array_grow((void **)&ni->images, &ni->imagecap, n, sizeof *ni->images))
        return -1;
    if (n) memcpy(ni->images, images, n * sizeof *images);
    ni->nimages = n;
    return 0;
}

const ms_image_state *ms_node_info_image(const ms_node_info *ni, ms_str name) {
    uint32_t lo = 0, hi = ni->nimages;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ni->images[mid].name < name) lo = mid + 1;
        else hi = mid;
    }
    return lo < ni->nimages && ni->images[lo].name == name ? &ni->images[lo] : NULL;
}
