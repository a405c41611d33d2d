/* A table-driven form of upstream descheduler's plugin tests, in our own
 * words and data: nodes, groups of pods written as upstream's helpers
 * build them (pod-0, pod-1, ... in namespace ns1, 100m cpu, owned by one
 * ReplicaSet unless a group says otherwise), the strategy's and
 * DefaultEvictor's args, and the expected eviction count and pods. The
 * placement oracle is not involved: these are the strategies alone. Include
 * after "descheduler/desched_fixtures.h". */
#ifndef MOONSCHED_TEST_UPSTREAM_CASES_H
#define MOONSCHED_TEST_UPSTREAM_CASES_H

/* The tables leave the fields a case does not use out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct uc_node {
    const char *name;
    int cpu_m;                /* 0: 2000; -1: none */
    int pods;                 /* 0: 10 */
    const char *labels;       /* flow mapping body */
    const char *spec;         /* flow mapping body of spec */
    int mem_mi;               /* 0: 3000 */
    const char *alloc;        /* more allocatable entries (", example.com/accel: 8") */
} uc_node;

typedef struct uc_pods {
    int count;
    const char *node;
    const char *labels;       /* flow mapping body */
    const char *meta;         /* more metadata (", annotations: {...}"); NULL: the ReplicaSet owner */
    const char *spec;         /* more spec (", nodeSelector: {...}") */
    const char *status;       /* status body; NULL: phase Running */
    int cpu_m;                /* 0: 100 */
    const char *ns;           /* NULL: ns1 */
    const char *created;      /* creationTimestamp; NULL: an hour before the pass */
    const char *containers;   /* the containers' flow sequence body; NULL: one, image img, cpu_m */
} uc_pods;

typedef struct uc_case {
    const char *name;         /* upstream's case name */
    uc_node nodes[8];
    uc_pods pods[12];
    const char *top;          /* policy lines before profiles (limits) */
    const char *args;         /* the strategy's args */
    const char *evictor;      /* DefaultEvictor's args */
    int want;                 /* evictions */
    const char *want_pods;    /* NULL, or the evicted pods, sorted, "pod-1,pod-3" */
    /* Where moonsched deliberately differs: why; want and want_pods are
     * then moonsched's documented result, not upstream's. */
    const char *differs;
    /* The namespaces the pass knows, "name{k=v;k2=v2} name2{}" (NULL: none known). */
    const char *namespaces;
} uc_case;

#define UC_OWNER ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]"

typedef struct uc_pod_text {
    char name[32];
    const char *node;
    char text[4096];
} uc_pod_text;

static int uc_cmp_pod(const void *a, const void *b) {
    return strcmp(((const uc_pod_text *)a)->name, ((const uc_pod_text *)b)->name);
}

/* The nodes, then the pods by name (pod-10 before pod-2), the order the
 * API server lists them in and upstream's tests sort them in. */
static inline void uc_build(dx_env *e, const uc_case *c) {
    for (int i = 0; i < 8 && c->nodes[i].name; i++) {
        const uc_node *n = &c->nodes[i];
        dx_node_alloc(e, n->name, n->cpu_m < 0 ? 0 : n->cpu_m ? n->cpu_m : 2000, n->mem_mi ? n->mem_mi : 3000,
                      n->pods ? n->pods : 10, n->labels ? n->labels : "", n->spec ? n->spec : "",
                      n->alloc ? n->alloc : "");
    }
    for (const char *p = c->namespaces; p && *(p += strspn(p, " "));) {
        const char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL;
        assert_non_null(close);
        dx_namespace_add(e, p, (size_t)(open - p), open + 1, (size_t)(close - open - 1));
        p = close + 1;
    }
    uc_pod_text *pods = calloc(DX_MAX * 4, sizeof *pods);
    assert_non_null(pods);
    int k = 0;
    for (int g = 0; g < 12 && c->pods[g].count; g++) {
        const uc_pods *p = &c->pods[g];
        for (int i = 0; i < p->count; i++, k++) {
            assert_true(k < DX_MAX * 4);
            char containers[512];
            if (p->containers) snprintf(containers, sizeof containers, "%s", p->containers);
            else snprintf(containers, sizeof containers, "{name: c, image: img, resources: {requests: {cpu: %dm}}}",
                          p->cpu_m ? p->cpu_m : 100);
            snprintf(pods[k].name, sizeof pods[k].name, "pod-%d", k);
            pods[k].node = p->node;
            snprintf(pods[k].text, sizeof pods[k].text,
                     "kind: Pod\nmetadata: {name: pod-%d, namespace: %s, uid: uid-%d, "
                     "creationTimestamp: '%s', labels: {%s}%s}\n"
                     "spec: {containers: [%s]%s}\n"
                     "status: {%s}\n",
                     k, p->ns ? p->ns : "ns1", k, p->created ? p->created : "2023-12-31T23:00:00Z", p->labels ? p->labels : "", p->meta ? p->meta : UC_OWNER, containers, p->spec ? p->spec : "",
                     p->status ? p->status : "phase: Running, startTime: '2023-12-31T23:00:00Z'");
        }
    }
    qsort(pods, (size_t)k, sizeof *pods, uc_cmp_pod);
    /* a pod bound to a node the cluster does not have is never listed */
    for (int i = 0; i < k; i++)
        if (dx_find_node(e, pods[i].node)) dx_pod_yaml(e, pods[i].node, pods[i].text);
    free(pods);
}

static int uc_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Runs every case; the failures are listed, then the count of cases that
 * agree with upstream printed and checked. */
static inline void uc_run_as(const char *label, const char *plugin, const char *point, const uc_case *cases,
                             size_t n) {
    int agree = 0, differ = 0;
    for (size_t i = 0; i < n; i++) {
        const uc_case *c = &cases[i];
        dx_env e;
        dx_init(&e);
        uc_build(&e, c);
        dx_policy_one(&e, c->top ? c->top : "", plugin, point, c->args ? c->args : "", c->evictor ? c->evictor : "");
        dx_run(&e);
        const char *names[DX_MAX * 4];
        uint32_t m = e.pass.nevictions;
        for (uint32_t k = 0; k < m; k++) names[k] = ms_str_get(e.fx.in, e.pass.evictions[k].pod->meta.name);
        qsort(names, m, sizeof *names, uc_cmp);
        char got[2048];
        size_t len = 0;
        got[0] = '\0';
        for (uint32_t k = 0; k < m && len < sizeof got; k++)
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", k ? "," : "", names[k]);
        bool ok = (int)m == c->want && (!c->want_pods || strcmp(got, c->want_pods) == 0);
        if (ok) agree += !c->differs;
        else print_message("%s: %s: got %u (%s), want %d (%s)\n", label, c->name, m, got, c->want,
                           c->want_pods ? c->want_pods : "any");
        if (ok && c->differs) {
            differ++;
            print_message("%s: %s: differs on purpose: %s\n", label, c->name, c->differs);
        }
        dx_free(&e);
    }
    print_message("%s: %d of %zu upstream cases agree, %d differ on purpose\n", label, agree, n, differ);
    assert_int_equal(agree + differ, (int)n);
}

/* The table of a strategy's own tests. */
static inline void uc_run(const char *plugin, const char *point, const uc_case *cases, size_t n) {
    uc_run_as(plugin, plugin, point, cases, n);
}

/* An upstream case moonsched answers by refusing the policy (a documented
 * difference): the strategy with args must not load, with a message
 * containing want; why is printed with the case. */
static inline void uc_refused(const char *plugin, const char *point, const char *args, const char *want,
                              const char *cases, const char *why) {
    dx_env e;
    dx_init(&e);
    char text[1024];
    snprintf(text, sizeof text,
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
             "  - {name: %s, args: {%s}}\n  plugins:\n    %s: {enabled: [%s]}\n", plugin, args, point, plugin);
    ms_error err;
    const char *msg = dx_policy_error(&e, text, &err);
    if (!strstr(msg, want)) fail_msg("%s: %s: got \"%s\", want \"%s\"", plugin, cases, msg, want);
    print_message("%s: %s: differ on purpose: %s\n", plugin, cases, why);
    dx_free(&e);
}

/* The test of a file whose only test is its table. */
#define UC_TABLE_MAIN(plugin, point, table)                             \
    static void test_upstream_table(void **state) {                    \
        (void)state;                                                    \
        uc_run(plugin, point, table, sizeof table / sizeof table[0]);   \
    }                                                                   \
    int main(void) {                                                    \
        const struct CMUnitTest tests[] = {                             \
            cmocka_unit_test(test_upstream_table),                      \
        };                                                              \
        return cmocka_run_group_tests(tests, NULL, NULL);               \
    }

#endif
