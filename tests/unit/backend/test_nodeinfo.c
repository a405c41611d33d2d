#include "testutil.h"

#include "base/map.h"
#include "moonsched/nodeinfo.h"

#define MI (1024LL * 1024)

/* Pods built by hand (the decoder is not needed): only the fields NodeInfo
 * reads. */
static ms_pod *mkpod(ms_interner *in, const char *name, int64_t cpu, int64_t mem) {
    ms_pod *p = ms_pod_alloc();
    assert_non_null(p);
    p->meta.name = ms_intern_cstr(in, name);
    p->meta.namespace_ = ms_intern_cstr(in, "default");
    p->meta.uid = ms_arena_strdup(&p->arena, name);
    p->meta.uid_hash = ms_hash_bytes(name, strlen(name));
    p->requests.v[MS_RES_CPU] = cpu;
    p->requests.v[MS_RES_MEMORY] = mem;
    p->non_zero_cpu = cpu ? cpu : MS_DEFAULT_MILLI_CPU_REQUEST;
    p->non_zero_mem = mem ? mem : MS_DEFAULT_MEMORY_REQUEST;
    return p;
}

static void set_scalar(ms_pod *p, ms_str name, int64_t v) {
    p->requests.scalar = MS_ARENA_NEW(&p->arena, ms_scalar, 1);
    p->requests.scalar[0] = (ms_scalar){name, v};
    p->requests.nscalar = 1;
}

typedef struct port_spec {
    const char *ip;      /* NULL: no hostIP */
    uint8_t protocol;
    int32_t port;
} port_spec;

static ms_host_port mkport(ms_interner *in, port_spec s) {
    return (ms_host_port){.host_ip = s.ip ? ms_intern_cstr(in, s.ip) : MS_STR_NONE,
                          .protocol = s.protocol, .port = s.port};
}

static void set_ports(ms_interner *in, ms_pod *p, const port_spec *ports, uint32_t n) {
    p->host_ports = MS_ARENA_NEW(&p->arena, ms_host_port, n);
    for (uint32_t i = 0; i < n; i++) p->host_ports[i] = mkport(in, ports[i]);
    p->nhost_ports = n;
}

static void test_add_remove_accounting(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str gpu = ms_intern_cstr(in, "nvidia.com/gpu");
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_pod *a = mkpod(in, "a", 500, 256 * MI);
    ms_pod *b = mkpod(in, "b", 0, 0);
    set_scalar(b, gpu, 2);

    assert_int_equal(ms_node_info_add_pod(ni, a, in), 0);
    assert_int_equal(ms_node_info_add_pod(ni, b, in), 0);
    assert_int_equal(ni->npods, 2);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 500);
    assert_int_equal(ni->requested.v[MS_RES_MEMORY], 256 * MI);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 2);
    assert_int_equal(ms_resources_scalar(&ni->requested, gpu), 2);
    /* b requests nothing: scoring counts upstream's defaults for it */
    assert_int_equal(ni->non_zero_cpu, 500 + 100);
    assert_int_equal(ni->non_zero_mem, 256 * MI + 200 * MI);
    assert_int_equal(a->refs, 2);   /* the NodeInfo holds its own reference */

    assert_int_equal(ms_node_info_remove_pod(ni, a, in), 0);
    assert_int_equal(a->refs, 1);
    assert_int_equal(ni->npods, 1);
    assert_ptr_equal(ni->pods[0], b);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 0);
    assert_int_equal(ni->requested.v[MS_RES_MEMORY], 0);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 1);
    assert_int_equal(ni->non_zero_cpu, 100);
    assert_int_equal(ni->non_zero_mem, 200 * MI);
    /* already gone, and a pod never added */
    assert_int_equal(ms_node_info_remove_pod(ni, a, in), MS_ENOENT);
    ms_pod *c = mkpod(in, "c", 1, 1);
    assert_int_equal(ms_node_info_remove_pod(ni, c, in), MS_ENOENT);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 1);

    assert_int_equal(ms_node_info_remove_pod(ni, b, in), 0);
    assert_int_equal(ms_resources_scalar(&ni->requested, gpu), 0);
    assert_int_equal(ni->requested.v[MS_RES_PODS], 0);
    assert_int_equal(ni->non_zero_cpu, 0);
    ms_pod_unref(a);
    ms_pod_unref(b);
    ms_pod_unref(c);
    ms_node_info_free(ni);
    ms_interner_free(in);
}

/* Removal is by uid: the object passed may be another copy of the pod (the
 * informer's version of an assumed pod). */
static void test_remove_by_uid_and_order(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_pod *p[4];
    const char *names[] = {"p0", "p1", "p2", "p3"};
    for (int i = 0; i < 4; i++) {
        p[i] = mkpod(in, names[i], 100 * (i + 1), 0);
        assert_int_equal(ms_node_info_add_pod(ni, p[i], in), 0);
    }
    ms_pod *other = mkpod(in, "p1", 200, 0);   /* same uid as p[1], other object */
    assert_int_equal(ms_node_info_find_pod(ni, other->meta.uid_hash), 1);
    assert_int_equal(ms_node_info_remove_pod(ni, other, in), 0);
    /* upstream's order: the last pod fills the hole */
    assert_int_equal(ni->npods, 3);
    assert_ptr_equal(ni->pods[0], p[0]);
    assert_ptr_equal(ni->pods[1], p[3]);
    assert_ptr_equal(ni->pods[2], p[2]);
    assert_int_equal(ni->pod_uids[1], p[3]->meta.uid_hash);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 100 + 300 + 400);
    assert_int_equal(p[1]->refs, 1);

    /* take hands the NodeInfo's reference to the caller */
    ms_pod *t = ms_node_info_take_pod(ni, p[2]->meta.uid_hash, in);
    assert_ptr_equal(t, p[2]);
    assert_int_equal(p[2]->refs, 2);
    assert_int_equal(ni->requested.v[MS_RES_CPU], 500);
    ms_pod_unref(t);
    assert_null(ms_node_info_take_pod(ni, p[2]->meta.uid_hash, in));

    for (int i = 0; i < 4; i++) ms_pod_unref(p[i]);
    ms_pod_unref(other);
    ms_node_info_free(ni);   /* releases p0 and p3 */
    ms_interner_free(in);
}

static void test_affinity_counts(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_pod *plain = mkpod(in, "plain", 0, 0);
    ms_pod *pref = mkpod(in, "pref", 0, 0);
    pref->pod_affinity.npreferred = 1;
    pref->pod_affinity.preferred = MS_ARENA_NEW(&pref->arena, ms_weighted_pod_affinity_term, 1);
    ms_pod *anti = mkpod(in, "anti", 0, 0);
    anti->pod_anti_affinity.nrequired = 1;
    anti->pod_anti_affinity.required = MS_ARENA_NEW(&anti->arena, ms_pod_affinity_term, 1);
    ms_pod *anti_pref = mkpod(in, "anti-pref", 0, 0);
    anti_pref->pod_anti_affinity.npreferred = 1;
    anti_pref->pod_anti_affinity.preferred = MS_ARENA_NEW(&anti_pref->arena, ms_weighted_pod_affinity_term, 1);

    ms_pod *all[] = {plain, pref, anti, anti_pref};
    for (int i = 0; i < 4; i++) assert_int_equal(ms_node_info_add_pod(ni, all[i], in), 0);
    assert_int_equal(ni->npods_with_affinity, 3);   /* any affinity or anti-affinity term */
    assert_int_equal(ni->npods_with_required_anti_affinity, 1);
    assert_int_equal(ms_node_info_remove_pod(ni, anti, in), 0);
    assert_int_equal(ni->npods_with_affinity, 2);
    assert_int_equal(ni->npods_with_required_anti_affinity, 0);
    assert_int_equal(ms_node_info_remove_pod(ni, plain, in), 0);
    assert_int_equal(ni->npods_with_affinity, 2);
    for (int i = 0; i < 4; i++) ms_pod_unref(all[i]);
    ms_node_info_free(ni);
    ms_interner_free(in);
}

/* upstream HostPortInfo.CheckConflict cases (framework/types_test.go and
 * nodeports tests): 0.0.0.0 and "" take every address of a protocol+port. */
static void test_host_port_conflicts(void **state) {
    (void)state;
    static const struct {
        const char *what;
        port_spec used[3];
        uint32_t nused;
        port_spec query;
        bool conflict;
    } cases[] = {
        {"same ip, protocol, port", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {"127.0.0.1", MS_PROTO_TCP, 80}, true},
        {"other ip", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {"127.0.0.2", MS_PROTO_TCP, 80}, false},
        {"other protocol", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {"127.0.0.1", MS_PROTO_UDP, 80}, false},
        {"other port", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {"127.0.0.1", MS_PROTO_TCP, 8080}, false},
        {"wildcard query vs specific", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {"0.0.0.0", MS_PROTO_TCP, 80}, true},
        {"empty ip query vs specific", {{"127.0.0.1", MS_PROTO_TCP, 80}}, 1, {NULL, MS_PROTO_TCP, 80}, true},
        {"specific query vs wildcard", {{"0.0.0.0", MS_PROTO_TCP, 80}}, 1, {"10.0.0.1", MS_PROTO_TCP, 80}, true},
        {"specific query vs empty ip", {{NULL, MS_PROTO_TCP, 80}}, 1, {"10.0.0.1", MS_PROTO_TCP, 80}, true},
        {"wildcard vs wildcard other protocol", {{"0.0.0.0", MS_PROTO_TCP, 80}}, 1, {"0.0.0.0", MS_PROTO_UDP, 80}, false},
        {"wildcard vs specific other protocol", {{"0.0.0.0", MS_PROTO_UDP, 53}}, 1, {"10.0.0.1", MS_PROTO_TCP, 53}, false},
        {"sctp", {{"0.0.0.0", MS_PROTO_SCTP, 9}}, 1, {"10.0.0.1", MS_PROTO_SCTP, 9}, true},
        {"several used, none match",
         {{"127.0.0.1", MS_PROTO_TCP, 80}, {"0.0.0.0", MS_PROTO_UDP, 80}, {"10.0.0.1", MS_PROTO_TCP, 8080}}, 3,
         {"127.0.0.2", MS_PROTO_TCP, 80}, false},
        {"several used, wildcard query hits one",
         {{"127.0.0.1", MS_PROTO_TCP, 80}, {"0.0.0.0", MS_PROTO_UDP, 80}, {"10.0.0.1", MS_PROTO_TCP, 8080}}, 3,
         {"0.0.0.0", MS_PROTO_TCP, 8080}, true},
        {"port 0 never conflicts", {{"0.0.0.0", MS_PROTO_TCP, 80}}, 1, {"0.0.0.0", MS_PROTO_TCP, 0}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_interner *in = ms_interner_new();
        ms_str wildcard = ms_intern_cstr(in, "0.0.0.0");
        ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
        ms_pod *p = mkpod(in, "p", 0, 0);
        set_ports(in, p, cases[i].used, cases[i].nused);
        assert_int_equal(ms_node_info_add_pod(ni, p, in), 0);
        ms_host_port q = mkport(in, cases[i].query);
        if (ms_node_info_port_conflict(ni, &q, wildcard) != cases[i].conflict)
            fail_msg("case '%s': expected conflict=%d", cases[i].what, cases[i].conflict);
        ms_node_info_free(ni);
        ms_pod_unref(p);
        ms_interner_free(in);
    }
}

static void test_host_ports_refcounted(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str wildcard = ms_intern_cstr(in, "0.0.0.0");
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
    port_spec ps[] = {{NULL, MS_PROTO_TCP, 8080}, {"10.0.0.1", MS_PROTO_UDP, 53}};
    ms_pod *a = mkpod(in, "a", 0, 0), *b = mkpod(in, "b", 0, 0);
    set_ports(in, a, ps, 2);
    set_ports(in, b, ps, 1);
    assert_int_equal(ms_node_info_add_pod(ni, a, in), 0);
    assert_int_equal(ms_node_info_add_pod(ni, b, in), 0);
    assert_int_equal(ni->nports, 2);
    /* "" is stored as 0.0.0.0 */
    for (uint32_t i = 0; i < ni->nports; i++)
        if (ni->ports[i].port == 8080) {
            assert_int_equal(ni->ports[i].ip, wildcard);
            assert_int_equal(ni->ports[i].count, 2);
        }
    ms_host_port q8080 = mkport(in, (port_spec){"192.168.0.1", MS_PROTO_TCP, 8080});
    ms_host_port q53 = mkport(in, (port_spec){"10.0.0.1", MS_PROTO_UDP, 53});
    assert_int_equal(ms_node_info_remove_pod(ni, a, in), 0);
    /* b still holds 8080; a's 53 is gone */
    assert_true(ms_node_info_port_conflict(ni, &q8080, wildcard));
    assert_false(ms_node_info_port_conflict(ni, &q53, wildcard));
    assert_int_equal(ni->nports, 1);
    assert_int_equal(ms_node_info_remove_pod(ni, b, in), 0);
    assert_false(ms_node_info_port_conflict(ni, &q8080, wildcard));
    assert_int_equal(ni->nports, 0);
    ms_pod_unref(a);
    ms_pod_unref(b);
    ms_node_info_free(ni);
    ms_interner_free(in);
}

static void test_copy_into_shares_and_reuses(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_str gpu = ms_intern_cstr(in, "nvidia.com/gpu");
    ms_node_info *src = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_node *node = ms_node_alloc();
    node->meta.name = src->name;
    ms_node_info_set_node(src, node);
    assert_int_equal(node->refs, 2);
    ms_pod *p[3];
    const char *names[] = {"a", "b", "c"};
    port_spec ps = {NULL, MS_PROTO_TCP, 80};
    for (int i = 0; i < 3; i++) {
        p[i] = mkpod(in, names[i], 100, MI);
        if (i == 0) set_scalar(p[i], gpu, 1);
        if (i == 1) set_ports(in, p[i], &ps, 1);
        assert_int_equal(ms_node_info_add_pod(src, p[i], in), 0);
    }
    ms_image_state imgs[] = {{ms_intern_cstr(in, "img:1"), 1000, 3}};
    assert_int_equal(ms_node_info_set_images(src, imgs, 1), 0);
    src->generation = 42;

    ms_node_info *dst = ms_node_info_new(MS_STR_NONE);
    assert_int_equal(ms_node_info_copy_into(dst, src), 0);
    assert_true(dst->borrowed);
    assert_int_equal(dst->name, src->name);
    assert_ptr_equal(dst->node, node);
    assert_int_equal(node->refs, 2);   /* borrowed: no reference taken */
    assert_int_equal(p[0]->refs, 2);
    assert_int_equal(dst->npods, 3);
    for (int i = 0; i < 3; i++) assert_ptr_equal(dst->pods[i], src->pods[i]);
    assert_int_equal(dst->requested.v[MS_RES_CPU], 300);
    assert_int_equal(dst->requested.v[MS_RES_PODS], 3);
    assert_int_equal(ms_resources_scalar(&dst->requested, gpu), 1);
    assert_int_equal(dst->nports, 1);
    assert_int_equal(dst->nimages, 1);
    assert_int_equal(dst->images[0].num_nodes, 3);
    assert_int_equal(dst->generation, 42);
    assert_ptr_not_equal(dst->pods, src->pods);   /* own arrays */

    /* A smaller source reuses dst's memory. */
    ms_pod **pods_mem = dst->pods;
    ms_used_port *ports_mem = dst->ports;
    ms_image_state *img_mem = dst->images;
    ms_scalar *scalar_mem = dst->requested.scalar;
    assert_int_equal(ms_node_info_remove_pod(src, p[2], in), 0);
    assert_int_equal(ms_node_info_copy_into(dst, src), 0);
    assert_int_equal(dst->npods, 2);
    assert_ptr_equal(dst->pods, pods_mem);
    assert_ptr_equal(dst->ports, ports_mem);
    assert_ptr_equal(dst->images, img_mem);
    assert_ptr_equal(dst->requested.scalar, scalar_mem);
    assert_int_equal(dst->requested.v[MS_RES_CPU], 200);

    /* A borrowed copy can be edited (preemption's what-if) without touching
     * reference counts. */
    assert_int_equal(ms_node_info_remove_pod(dst, p[0], in), 0);
    assert_int_equal(p[0]->refs, 2);
    assert_int_equal(dst->requested.v[MS_RES_CPU], 100);
    assert_int_equal(src->requested.v[MS_RES_CPU], 200);
    assert_int_equal(ms_node_info_add_pod(dst, p[2], in), 0);
    assert_int_equal(p[2]->refs, 1);
    ms_node_info_free(dst);
    assert_int_equal(node->refs, 2);
    assert_int_equal(p[1]->refs, 2);

    for (int i = 0; i < 3; i++) ms_pod_unref(p[i]);
    ms_node_info_free(src);
    assert_int_equal(node->refs, 1);
    ms_node_unref(node);
    ms_interner_free(in);
}

static void test_set_node_and_images(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_node *a = ms_node_alloc(), *b = ms_node_alloc();
    ms_node_info_set_node(ni, a);
    ms_node_info_set_node(ni, a);   /* same node: no extra reference */
    assert_int_equal(a->refs, 2);
    ms_node_info_set_node(ni, b);
    assert_int_equal(a->refs, 1);
    assert_int_equal(b->refs, 2);
    ms_node_info_set_node(ni, NULL);
    assert_int_equal(b->refs, 1);

    ms_str x = ms_intern_cstr(in, "x"), y = ms_intern_cstr(in, "y"), z = ms_intern_cstr(in, "z");
    ms_image_state imgs[] = {{x, 10, 1}, {y, 20, 2}, {z, 30, 3}};
    assert_int_equal(ms_node_info_set_images(ni, imgs, 3), 0);
    assert_int_equal(ms_node_info_image(ni, y)->size, 20);
    assert_int_equal(ms_node_info_image(ni, z)->num_nodes, 3);
    assert_null(ms_node_info_image(ni, ms_intern_cstr(in, "w")));
    assert_int_equal(ms_node_info_set_images(ni, imgs, 1), 0);
    assert_null(ms_node_info_image(ni, y));
    ms_node_unref(a);
    ms_node_unref(b);
    ms_node_info_free(ni);
    ms_interner_free(in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_remove_accounting),
        cmocka_unit_test(test_remove_by_uid_and_order),
        cmocka_unit_test(test_affinity_counts),
        cmocka_unit_test(test_host_port_conflicts),
        cmocka_unit_test(test_host_ports_refcounted),
        cmocka_unit_test(test_copy_into_shares_and_reuses),
        cmocka_unit_test(test_set_node_and_images),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
