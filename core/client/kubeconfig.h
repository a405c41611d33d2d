/* Where the API server is and how to authenticate to it: a kubeconfig file
 * (clusters, users, contexts, current-context) or the in-cluster service
 * account. The result is the one cluster and user selected by the context,
 * with relative paths resolved against the directory of the file that
 * named them and base64 *-data fields decoded. Checks follow client-go's
 * clientcmd validation (a file and inline data both given, two
 * authentication methods, a certificate without a key are errors). */
#ifndef MOONSCHED_KUBECONFIG_H
#define MOONSCHED_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "moonsched/error.h"

/* users[].user.exec: a credential plugin (client.authentication.k8s.io
 * ExecCredential, v1 or v1beta1) that client/exec_credential.h runs. */
typedef enum ms_exec_interactive {
    MS_EXEC_INTERACTIVE_NEVER,
    MS_EXEC_INTERACTIVE_IF_AVAILABLE,   /* stdin when it is a terminal */
    MS_EXEC_INTERACTIVE_ALWAYS,         /* a terminal is required */
} ms_exec_interactive;

typedef struct ms_kube_exec {
    char *api_version;             /* "client.authentication.k8s.io/v1" or ".../v1beta1" */
    char *command;                 /* resolved against the file's directory when it holds a '/' */
    char **args;
    size_t nargs;
    char **env;                    /* "NAME=value", added to moonsched's environment */
    size_t nenv;
    ms_exec_interactive interactive;
    bool provide_cluster_info;
    char *install_hint;
    /* The cluster's client.authentication.k8s.io/exec extension as JSON
     * (spec.cluster.config of KUBERNETES_EXEC_INFO), or NULL. */
    char *cluster_config;
} ms_kube_exec;

/* Every string is owned (malloc'd) or NULL when absent. *_data blobs are
 * the decoded bytes (PEM text), NUL-terminated, with their length. */
typedef struct ms_kubeconfig {
    char *context;                 /* selected context's name ("" in-cluster) */
    char *cluster_name;
    char *user_name;
    char *namespace_;              /* context namespace or in-cluster namespace file;
                                      "default" when unset */

    /* cluster */
    char *server;                  /* base URL, no trailing '/': "https://10.0.0.1:6443" */
    char *tls_server_name;         /* name checked in the server certificate and sent as SNI */
    bool insecure_skip_tls_verify;
    char *ca_file;                 /* certificate-authority (absolute path) */
    char *ca_data;                 /* certificate-authority-data */
    size_t ca_len;
    char *proxy_url;

    /* user */
    char *cert_file;               /* client-certificate */
    char *cert_data;               /* client-certificate-data */
    size_t cert_len;
    char *key_file;                /* client-key */
    char *key_data;                /* client-key-data */
    size_t key_len;
    char *token;                   /* static bearer token */
    char *token_file;              /* tokenFile: read by the client, re-read periodically
                                      (used only when `token` is empty) */
    char *username;                /* basic auth */
    char *password;
    char *impersonate;             /* as */
    char **impersonate_groups;     /* as-groups */
    size_t nimpersonate_groups;
    char **impersonate_extra;      /* as-user-extra, as "key=value" pairs */
    size_t nimpersonate_extra;
    /* A credential plugin; NULL without one, and (as client-go) when the
     * user also has a token, token file, basic auth or a certificate. */
    ms_kube_exec *exec;
} ms_kubeconfig;

/* Loads one kubeconfig file. context: the context to use (NULL or "": the
 * file's current-context). Errors name the file and the entry:
 * "admin.conf: users[0].user.client-key-data: illegal base64 data at input
 * byte 12", "admin.conf: user gke: the gcp auth-provider ... use the exec
 * credential plugin gke-gcloud-auth-plugin". */
ms_rc ms_kubeconfig_load_file(ms_kubeconfig *kc, const char *path, const char *context,
                              ms_error *err);

/* Several files merged the way KUBECONFIG=a:b:c is: a cluster, user or
 * context comes from the first file that defines that name, current-context
 * from the first file that sets it. Missing files are skipped (at least one
 * must exist). Relative paths resolve against the defining file. */
ms_rc ms_kubeconfig_load_files(ms_kubeconfig *kc, const char *const *paths, size_t npaths,
                               const char *context, ms_error *err);

/* A kubeconfig held in memory; dir resolves relative paths (NULL: the
 * current directory); source names the text in errors. */
ms_rc ms_kubeconfig_load_buffer(ms_kubeconfig *kc, const char *buf, size_t len, const char *dir,
                                const char *source, const char *context, ms_error *err);

/* The pod's service account: $KUBERNETES_SERVICE_HOST and
 * $KUBERNETES_SERVICE_PORT, and sa_dir/{token,ca.crt,namespace} (sa_dir NULL:
 * /var/run/secrets/kubernetes.io/serviceaccount). The token is not copied:
 * token_file points at it so that the client re-reads rotated (bound)
 * tokens. */
#define MS_SERVICE_ACCOUNT_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
ms_rc ms_kubeconfig_in_cluster(ms_kubeconfig *kc, const char *sa_dir, ms_error *err);

/* What kube-scheduler does: an explicit path (--kubeconfig or
 * clientConnection.kubeconfig) wins; without one, the in-cluster
 * configuration when $KUBERNETES_SERVICE_HOST is set; else $KUBECONFIG
 * (colon-separated, merged), else ~/.kube/config. */
ms_rc ms_kubeconfig_load_default(ms_kubeconfig *kc, const char *path, const char *context,
                                 ms_error *err);

void ms_kubeconfig_free(ms_kubeconfig *kc);

#endif
