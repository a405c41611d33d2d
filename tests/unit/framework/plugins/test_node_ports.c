/* NodePorts: host port conflicts by protocol and address, 0.0.0.0
 * conflicting with every address (upstream's TestNodePorts), and the Skip
 * of a pod without host ports. */
#include "testutil.h"

#include "plugin_harness.h"

#define MAXP 3
typedef struct port_spec {
    const char *proto, *ip;
    int32_t port;
} port_spec;

static uint8_t proto_of(const char *p) {
    return strcmp(p, "UDP") == 0 ? MS_PROTO_UDP : strcmp(p, "SCTP") == 0 ? MS_PROTO_SCTP : MS_PROTO_TCP;
}

static void test_node_ports(void **state) {
    (void)state;
    static const struct {
        const char *name;
        port_spec want[MAXP], used[MAXP];
        bool fits;
    } cases[] = {
        {"other port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 9090}}, true},
        {"same udp port", {{"UDP", "127.0.0.1", 8080}}, {{"UDP", "127.0.0.1", 8080}}, false},
        {"same tcp port", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, false},
        {"different host ip", {{"TCP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.2", 8080}}, true},
        {"different protocol", {{"UDP", "127.0.0.1", 8080}}, {{"TCP", "127.0.0.1", 8080}}, true},
        {"second udp port conflict", {{"UDP", "127.0.0.1", 8000}, {"UDP", "127.0.0.1", 8080}},
         {{"UDP", "127.0.0.1", 8080}}, false},
        {"first tcp port conflict", {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8080}},
         {{"TCP", "127.0.0.1", 8001}, {"UDP", "127.0.0.1", 8081}}, false},
        {"first tcp port conflict due to 0.0.0.0 hostIP", {{"TCP", "0.0.0.0", 8001}},
         {{"TCP", "127.0.0.1", 8001}}, false},
        {"TCP hostPort conflict due to 0.0.0.0 hostIP", {{"TCP", "10.0.10.10", 8001}, {"TCP", "0.0.0.0", 8001}},
         {{"TCP", "127.0.0.1", 8001}}, false},
        {"second tcp port conflict to 0.0.0.0 hostIP", {{"TCP", "127.0.0.1", 8001}},
         {{"TCP", "0.0.0.0", 8001}}, false},
        {"second different protocol", {{"UDP", "127.0.0.1", 8001}}, {{"TCP", "0.0.0.0", 8001}}, true},
        {"UDP hostPort conflict due to 0.0.0.0 hostIP", {{"UDP", "127.0.0.1", 8001}},
         {{"TCP", "0.0.0.0", 8001}, {"UDP", "0.0.0.0", 8001}}, false},
        {"no hostIP means every address", {{"TCP", NULL, 8001}}, {{"TCP", "127.0.0.1", 8001}}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        uint32_t nw = 0, nu = 0;
        while (nw < MAXP && cases[i].want[nw].port) nw++;
        while (nu < MAXP && cases[i].used[nu].port) nu++;
        pod->nhost_ports = nw;
        pod->host_ports = MS_ARENA_NEW(&pod->arena, ms_host_port, nw);
        for (uint32_t k = 0; k < nw; k++)
            pod->host_ports[k] = (ms_host_port){S(cases[i].want[k].ip), cases[i].want[k].port,
                                                proto_of(cases[i].want[k].proto)};
        ms_used_port used[MAXP];
        for (uint32_t k = 0; k < nu; k++)
            used[k] = (ms_used_port){S(cases[i].used[k].ip), proto_of(cases[i].used[k].proto),
                                     cases[i].used[k].port, 1};
        ms_node *node = node_with("n", NULL);
        ms_node_info ni = {.name = node->meta.name, .node = node, .nports = nu, .ports = used};
        harness hx;
        harness_init(&hx, "NodePorts", pod);
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SUCCESS);
        ms_code code = hx.ops->filter(hx.self, &hx.c, &ni, &st);
        if (cases[i].fits != (code == MS_SUCCESS)) fail_msg("%s: code %d", cases[i].name, code);
        if (!cases[i].fits) {
            assert_int_equal(code, MS_UNSCHEDULABLE);
            assert_string_equal(st.reasons[0], "node(s) didn't have free ports for the requested pod ports");
        }
        harness_free(&hx);
        ms_node_unref(node);
        ms_pod_unref(pod);
    }
}

/* A pod without host ports has nothing to check: PreFilter skips Filter. */
static void test_node_ports_skip_without_ports(void **state) {
    (void)state;
    ms_pod *pod = pod_with(NULL);
    harness hx;
    harness_init(&hx, "NodePorts", pod);
    ms_status st;
    assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SKIP);
    harness_free(&hx);
    ms_pod_unref(pod);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_ports),
        cmocka_unit_test(test_node_ports_skip_without_ports),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
