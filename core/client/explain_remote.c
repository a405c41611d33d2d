/* The explain client. See client/explain_remote.h. The request goes through
 * the one HTTP client (client/kube_client.h): with --server, a kubeconfig
 * made of the flags (the secure port speaks the API server's
 * authentication); otherwise the user's kubeconfig, to the API server. */
#include "client/explain_remote.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "client/leader_election.h"

#define DEFAULT_LEASE "kube-system/kube-scheduler"
#define DEFAULT_PORT 10259

static ms_rc direct(const ms_explain_remote_options *o, ms_kube_response *resp, char *where, size_t n,
                    ms_error *err) {
    ms_kubeconfig kc;
    memset(&kc, 0, sizeof kc);
    kc.server = (char *)o->server;
    kc.insecure_skip_tls_verify = o->insecure;
    kc.ca_file = (char *)o->ca_file;
    kc.token = (char *)o->token;
    kc.token_file = (char *)o->token_file;
    snprintf(where, n, "%s", o->server);
    /* kc's strings are borrowed: the client copies them */
    ms_kube_client_options co = {.config = &kc, .user_agent = "moonsched/0.1 (explain)",
                                 .timeout = o->timeout > 0 ? o->timeout : 30, .max_retries = -1};
    ms_kube_client *c = NULL;
    ms_rc rc = ms_kube_client_new(&co, &c, err);
    if (rc != MS_OK) return rc;
    char path[1024] = "/debug/explain?pod=";
    rc = ms_kube_query_escape(path, sizeof path, o->pod) ? ms_kube_get(c, path, resp, err)
                                                         : ms_error_set(err, MS_EINVAL, "explain: the pod's name is too long");
    ms_kube_client_free(c);
    return rc;
}

/* "NS/NAME" into ns and name; a bare NAME takes def_ns. */
static bool split_name(const char *s, const char *def_ns, char *ns, size_t nsn, char *name, size_t namen) {
    const char *slash = strchr(s, '/');
    int a = slash ? snprintf(ns, nsn, "%.*s", (int)(slash - s), s) : snprintf(ns, nsn, "%s", def_ns);
    int b = snprintf(name, namen, "%s", slash ? slash + 1 : s);
    return a > 0 && (size_t)a < nsn && b > 0 && (size_t)b < namen;
}

/* The leader's pod: client-go's identity, which run uses too, is the
 * host name (in a pod, the pod's name), "_", and a UUID. */
static ms_rc leader_pod(ms_kube_client *c, const char *lease_ns, const char *lease_name, char *pod, size_t n,
                        ms_error *err) {
    char path[600];
    snprintf(path, sizeof path, "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", lease_ns, lease_name);
    ms_kube_response resp = {0};
    ms_rc rc = ms_kube_get(c, path, &resp, err);
    if (rc == MS_OK && resp.status != 200)
        rc = ms_error_set(err, resp.status == 404 ? MS_ENOENT : MS_EIO,
                          "the Lease %s/%s: the API server answered %ld (run --leader-elect-resource-name and "
                          "-namespace say which Lease; --lease NS/NAME, or --scheduler POD)",
                          lease_ns, lease_name, resp.status);
    ms_lease_record rec;
    if (rc == MS_OK) rc = ms_lease_decode(resp.body, resp.len, &rec, NULL, 0, err);
    ms_kube_response_free(&resp);
    if (rc != MS_OK) return rc;
    const char *cut = strrchr(rec.holder_identity, '_');
    size_t len = cut ? (size_t)(cut - rec.holder_identity) : strlen(rec.holder_identity);
    if (len == 0 || len >= n)
        return ms_error_set(err, MS_ENOENT, "the Lease %s/%s has no holder: no scheduler leads (--scheduler POD "
                            "asks one by name)", lease_ns, lease_name);
    snprintf(pod, n, "%.*s", (int)len, rec.holder_identity);
    return MS_OK;
}

static ms_rc through_api_server(const ms_explain_remote_options *o, ms_kube_response *resp, char *where,
                                size_t n, ms_error *err) {
    /* pod stays empty when the Lease names no one: the path and `where`
     * below are formatted before rc is looked at */
    char lease_ns[254], lease_name[254], ns[254], pod[254] = "";
    if (!split_name(o->lease ? o->lease : DEFAULT_LEASE, "kube-system", lease_ns, sizeof lease_ns, lease_name,
                    sizeof lease_name))
        return ms_error_set(err, MS_EINVAL, "--lease: expected NAMESPACE/NAME, got \"%s\"", o->lease);
    ms_kubeconfig kc;
    ms_rc rc = ms_kubeconfig_load_default(&kc, o->kubeconfig, o->context, err);
    if (rc != MS_OK) return rc;
    ms_kube_client_options co = {.config = &kc, .user_agent = "moonsched/0.1 (explain)",
                                 .timeout = o->timeout > 0 ? o->timeout : 30, .max_retries = -1};
    ms_kube_client *c = NULL;
    rc = ms_kube_client_new(&co, &c, err);
    ms_kubeconfig_free(&kc);
    if (rc != MS_OK) return rc;
    snprintf(ns, sizeof ns, "%s", lease_ns);
    if (o->scheduler) {
        if (!split_name(o->scheduler, lease_ns, ns, sizeof ns, pod, sizeof pod))
            rc = ms_error_set(err, MS_EINVAL, "--scheduler: expected [NAMESPACE/]POD, got \"%s\"", o->scheduler);
    } else {
        rc = leader_pod(c, lease_ns, lease_name, pod, sizeof pod, err);
    }
    char path[1400];
    int len = snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/https:%s:%d/proxy/debug/explain?pod=", ns,
                       pod, o->port > 0 ? o->port : DEFAULT_PORT);
    if (rc == MS_OK && (len < 0 || (size_t)len >= sizeof path || !ms_kube_query_escape(path, sizeof path, o->pod)))
        rc = ms_error_set(err, MS_EINVAL, "explain: the pod's name is too long");
    snprintf(where, n, "the scheduler %s/%s through %s", ns, pod, ms_kube_client_server(c));
    if (rc == MS_OK) rc = ms_kube_get(c, path, resp, err);
    ms_kube_client_free(c);
    return rc;
}

/* An answer of the API server itself (a Status), not of the scheduler
 * behind it: its message. */
static const char *api_status_message(const cJSON *body) {
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(body, "kind");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(body, "message");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "Status") != 0) return NULL;
    return cJSON_IsString(msg) ? msg->valuestring : "";
}

ms_rc ms_explain_remote(const ms_explain_remote_options *o, ms_kube_response *answer, ms_error *err) {
    memset(answer, 0, sizeof *answer);
    if (!o->pod || !strchr(o->pod, '/'))
        return ms_error_set(err, MS_EINVAL, "explain: expected NAMESPACE/NAME, got \"%s\"", o->pod ? o->pod : "");
    ms_kube_response resp = {0};
    char where[1024] = "";
    ms_rc rc = o->server ? direct(o, &resp, where, sizeof where, err)
                         : through_api_server(o, &resp, where, sizeof where, err);
    if (rc == MS_OK && resp.status != 200) {
        size_t n = resp.len;
        while (n && (resp.body[n - 1] == '\n')) n--;
        cJSON *body = o->server ? NULL : cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
        const char *status = api_status_message(body);
        if (status)
            rc = ms_error_set(err, MS_EIO, "%s: the API server answered %ld: %s", where, resp.status, status);
        else
            rc = ms_error_set(err, resp.status == 404 ? MS_ENOENT : MS_EIO, "%s answered %ld: %.*s", where,
                              resp.status, (int)(n > 400 ? 400 : n), resp.body ? resp.body : "");
        cJSON_Delete(body);
    }
    if (rc == MS_OK) *answer = resp;
    else ms_kube_response_free(&resp);
    return rc;
}
