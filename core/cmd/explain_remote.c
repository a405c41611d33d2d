/* The explain client. See cmd/explain_remote.h. The request goes through
 * the one HTTP client (client/kube_client.h) with a kubeconfig made of the
 * flags: the secure port speaks the API server's authentication. */
#include "cmd/explain_remote.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "cmd/explain_text.h"

#define DEFAULT_SERVER "https://127.0.0.1:10259"

static ms_rc fetch(const ms_explain_remote_options *o, ms_kube_response *resp, ms_error *err) {
    ms_kubeconfig kc;
    memset(&kc, 0, sizeof kc);
    kc.server = (char *)(o->server ? o->server : DEFAULT_SERVER);
    kc.insecure_skip_tls_verify = o->insecure;
    kc.ca_file = (char *)o->ca_file;
    kc.token = (char *)o->token;
    kc.token_file = (char *)o->token_file;
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

ms_rc ms_explain_remote(const ms_explain_remote_options *o, FILE *out, ms_error *err) {
    if (!o->pod || !strchr(o->pod, '/'))
        return ms_error_set(err, MS_EINVAL, "explain: expected NAMESPACE/NAME, got \"%s\"", o->pod ? o->pod : "");
    ms_kube_response resp = {0};
    ms_rc rc = fetch(o, &resp, err);
    if (rc == MS_OK && resp.status != 200) {
        size_t n = resp.len;
        while (n && (resp.body[n - 1] == '\n')) n--;
        rc = ms_error_set(err, resp.status == 404 ? MS_ENOENT : MS_EIO, "%s answered %ld: %.*s",
                          o->server ? o->server : DEFAULT_SERVER, resp.status, (int)(n > 400 ? 400 : n),
                          resp.body ? resp.body : "");
    }
    if (rc == MS_OK && o->json) {
        fwrite(resp.body, 1, resp.len, out);
    } else if (rc == MS_OK) {
        cJSON *e = cJSON_Parse(resp.body ? resp.body : "");
        if (e) ms_explain_print(out, e);
        else rc = ms_error_set(err, MS_EIO, "the answer is not JSON");
        cJSON_Delete(e);
    }
    ms_kube_response_free(&resp);
    return rc;
}
