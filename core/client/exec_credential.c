/* Exec credential plugins (client.authentication.k8s.io v1 and v1beta1). */
#include "client/exec_credential.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "codec/base64.h"
#include "codec/decode_internal.h"
#include "moonsched/decode.h"

extern char **environ;

#define EXEC_INFO_ENV "KUBERNETES_EXEC_INFO"
#define MAX_STDOUT (4u << 20)      /* an ExecCredential with a certificate chain is a few KiB */
#define MAX_STDERR 4096u           /* what an error quotes of the plugin's stderr */
#define MAX_CA_FILE (64u << 20)

struct ms_exec_credential {
    atomic_uint refs;
    ms_kube_exec x;                /* deep copy of the configuration */
    char *user;
    char *cluster_json;            /* spec.cluster of KUBERNETES_EXEC_INFO, or NULL */
    const ms_logger *log;
    ms_clock_fn wall;
    void *wall_ctx;
    int stdin_fd;

    pthread_mutex_t mu;
    bool valid;
    char *token, *cert, *key;
    size_t cert_len, key_len;
    double expires;                /* wall seconds; 0: never */
    uint64_t generation;
    uint64_t runs;
};

static double wall_now(void *ctx) {
    (void)ctx;
    return ms_clock_wall();
}

static void wipe(char **p, size_t n) {
    if (*p) memset(*p, 0, n);
    free(*p);
    *p = NULL;
}

static void drop_creds(ms_exec_credential *ec) {
    wipe(&ec->token, ec->token ? strlen(ec->token) : 0);
    wipe(&ec->cert, ec->cert_len);
    wipe(&ec->key, ec->key_len);
    ec->cert_len = ec->key_len = 0;
    ec->valid = false;
}

static char **dup_list(char *const *v, size_t n) {
    char **out = calloc(n ? n : 1, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(out[i] = strdup(v[i]))) {
            for (size_t j = 0; j < i; j++) free(out[j]);
            free(out);
            return NULL;
        }
    return out;
}

static void free_list(char **v, size_t n) {
    for (size_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

/* spec.cluster: the fields of the kubeconfig's cluster a plugin needs to
 * reach it itself (the CA always as data, as client-go sends it). */
static ms_rc cluster_json(const ms_kubeconfig *kc, char **out, ms_error *err) {
    *out = NULL;
    char *ca = NULL;
    size_t ca_len = 0;
    if (kc->ca_data) {
        ca = kc->ca_data;
        ca_len = kc->ca_len;
    } else if (kc->ca_file) {
        ms_rc rc = ms_read_file(kc->ca_file, MAX_CA_FILE, &ca, &ca_len, err);
        if (rc != MS_OK) return rc;
    }
    char *ca64 = ca ? ms_base64_encode(ca, ca_len) : NULL;
    if (ca && ca != kc->ca_data) free(ca);
    cJSON *c = cJSON_CreateObject();
    bool ok = c && (!ca || ca64) && cJSON_AddStringToObject(c, "server", kc->server);
    if (ok && kc->tls_server_name) ok = cJSON_AddStringToObject(c, "tls-server-name", kc->tls_server_name);
    if (ok && kc->insecure_skip_tls_verify) ok = cJSON_AddTrueToObject(c, "insecure-skip-tls-verify");
    if (ok && ca64) ok = cJSON_AddStringToObject(c, "certificate-authority-data", ca64);
    if (ok && kc->proxy_url) ok = cJSON_AddStringToObject(c, "proxy-url", kc->proxy_url);
    if (ok && kc->exec->cluster_config) {
        cJSON *cfg = cJSON_Parse(kc->exec->cluster_config);
        ok = cfg && cJSON_AddItemToObject(c, "config", cfg);
        if (!ok) cJSON_Delete(cfg);
    }
    if (ok) ok = (*out = cJSON_PrintUnformatted(c)) != NULL;
    cJSON_Delete(c);
    free(ca64);
    return ok ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

ms_rc ms_exec_credential_new(const ms_exec_credential_options *o, ms_exec_credential **out, ms_error *err) {
    *out = NULL;
    const ms_kubeconfig *kc = o->config;
    if (!kc || !kc->exec || !kc->exec->command || !kc->exec->api_version)
        return ms_error_set(err, MS_EINVAL, "exec credential: no plugin configured");
    ms_exec_credential *ec = calloc(1, sizeof *ec);
    if (!ec) return ms_error_set(err, MS_ENOMEM, "out of memory");
    pthread_mutex_init(&ec->mu, NULL);
    atomic_init(&ec->refs, 1);
    ec->log = o->log ? o->log : &ms_log_default;
    ec->wall = o->wall ? o->wall : wall_now;
    ec->wall_ctx = o->wall_ctx;
    ec->stdin_fd = o->stdin_fd > 0 ? o->stdin_fd : STDIN_FILENO;
    const ms_kube_exec *x = kc->exec;
    ec->x.interactive = x->interactive;
    ec->x.provide_cluster_info = x->provide_cluster_info;
    ec->x.nargs = x->nargs;
    ec->x.nenv = x->nenv;
    ms_rc rc = MS_OK;
    if (!(ec->x.api_version = strdup(x->api_version)) || !(ec->x.command = strdup(x->command)) ||
        !(ec->user = strdup(kc->user_name ? kc->user_name : "")) ||
        (x->install_hint && !(ec->x.install_hint = strdup(x->install_hint))) ||
        !(ec->x.args = dup_list(x->args, x->nargs)) || !(ec->x.env = dup_list(x->env, x->nenv))) {
        ec->x.nargs = ec->x.nenv = 0;   /* a failed dup_list freed its own */
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    } else if (x->provide_cluster_info && kc->server) {
        rc = cluster_json(kc, &ec->cluster_json, err);
    }
    if (rc != MS_OK) {
        ms_exec_credential_free(ec);
        return rc;
    }
    *out = ec;
    return MS_OK;
}

ms_exec_credential *ms_exec_credential_ref(ms_exec_credential *ec) {
    atomic_fetch_add(&ec->refs, 1);
    return ec;
}

void ms_exec_credential_free(ms_exec_credential *ec) {
    if (!ec || atomic_fetch_sub(&ec->refs, 1) != 1) return;
    drop_creds(ec);
    free(ec->x.api_version);
    free(ec->x.command);
    free(ec->x.install_hint);
    free_list(ec->x.args, ec->x.nargs);
    free_list(ec->x.env, ec->x.nenv);
    free(ec->user);
    free(ec->cluster_json);
    pthread_mutex_destroy(&ec->mu);
    free(ec);
}

/* ---- running the plugin ---- */

/* The KUBERNETES_EXEC_INFO variable: an ExecCredential with only a spec. */
static char *exec_info(const ms_exec_credential *ec, bool interactive) {
    ms_buf b = {0};
    ms_buf_printf(&b, EXEC_INFO_ENV "={\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\",\"spec\":{", ec->x.api_version);
    if (ec->x.provide_cluster_info && ec->cluster_json) ms_buf_printf(&b, "\"cluster\":%s,", ec->cluster_json);
    ms_buf_printf(&b, "\"interactive\":%s}}", interactive ? "true" : "false");
    if (b.failed) {
        ms_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static bool env_named(const char *kv, const char *name_eq) {
    size_t n = strchr(name_eq, '=') - name_eq + 1;
    return strncmp(kv, name_eq, n) == 0;
}

/* moonsched's environment, where the configured env overrides variables
 * of the same name (Go's exec keeps the last of duplicates), then
 * KUBERNETES_EXEC_INFO. */
static char **plugin_env(const ms_exec_credential *ec, char *info) {
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + ec->x.nenv + 2, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool overridden = env_named(environ[i], info);
        for (size_t j = 0; !overridden && j < ec->x.nenv; j++) overridden = env_named(environ[i], ec->x.env[j]);
        if (!overridden) env[k++] = environ[i];
    }
    for (size_t j = 0; j < ec->x.nenv; j++) env[k++] = ec->x.env[j];
    env[k] = info;
    return env;
}

typedef struct plugin_run {
    ms_buf out;
    ms_buf errtext;
    int status;                    /* waitpid's */
} plugin_run;

/* Reads stdout (and stderr when captured) to their ends. */
static ms_rc drain(int out_fd, int err_fd, plugin_run *pr, ms_error *err) {
    struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
    bool too_big = false;
    char chunk[4096];
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return ms_error_set(err, MS_EIO, "exec: poll: %s", strerror(errno));
        }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents) continue;
            ssize_t r = read(p[i].fd, chunk, sizeof chunk);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                p[i].fd = -1;
                continue;
            }
            ms_buf *b = i == 0 ? &pr->out : &pr->errtext;
            size_t cap = i == 0 ? MAX_STDOUT : MAX_STDERR;
            size_t room = b->len < cap ? cap - b->len : 0;
            if ((size_t)r > room && i == 0) too_big = true;
            ms_buf_append(b, chunk, (size_t)r < room ? (size_t)r : room);
        }
    }
    if (pr->out.failed || pr->errtext.failed) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (too_big) return ms_error_set(err, MS_EINVAL, "exec: the plugin wrote more than %u bytes", MAX_STDOUT);
    return MS_OK;
}

static ms_rc spawn_and_wait(const ms_exec_credential *ec, bool interactive, plugin_run *pr, ms_error *err) {
    char *info = exec_info(ec, interactive);
    char **env = info ? plugin_env(ec, info) : NULL;
    char **argv = calloc(ec->x.nargs + 2, sizeof *argv);
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    ms_rc rc = MS_OK;
    if (!info || !env || !argv) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    argv[0] = ec->x.command;
    for (size_t i = 0; i < ec->x.nargs; i++) argv[i + 1] = ec->x.args[i];
    if (pipe2(outp, O_CLOEXEC) != 0 || (!interactive && pipe2(errp, O_CLOEXEC) != 0)) {
        rc = ms_error_set(err, MS_EIO, "exec: pipe: %s", strerror(errno));
        goto out;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&fa, outp[1], STDOUT_FILENO);
    if (interactive) {
        if (ec->stdin_fd != STDIN_FILENO) posix_spawn_file_actions_adddup2(&fa, ec->stdin_fd, STDIN_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
    }
    /* The plugin starts with default signals, not with the mask of the
     * thread that happens to need a token (run blocks SIGTERM for its
     * signalfd). */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int e = posix_spawnp(&pid, ec->x.command, &fa, &attr, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(outp[1]);
    outp[1] = -1;
    if (errp[1] >= 0) close(errp[1]);
    errp[1] = -1;
    if (e != 0) {
        if (e == ENOENT)
            rc = ms_error_set(err, MS_ENOENT, "exec: executable %s not found%s%s", ec->x.command,
                              ec->x.install_hint ? "\n\n" : "", ec->x.install_hint ? ec->x.install_hint : "");
        else
            rc = ms_error_set(err, MS_EIO, "exec: %s: %s", ec->x.command, strerror(e));
        goto out;
    }
    rc = drain(outp[0], errp[0], pr, err);
    /* closed before the wait: a plugin still writing (drain gave up) gets
     * EPIPE instead of blocking the wait for ever */
    for (int i = 0; i < 2; i++) {
        int *fd = i ? &errp[0] : &outp[0];
        if (*fd >= 0) close(*fd);
        *fd = -1;
    }
    while (waitpid(pid, &pr->status, 0) < 0 && errno == EINTR) {
    }
out:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0) close(outp[i]);
        if (errp[i] >= 0) close(errp[i]);
    }
    free(argv);
    free(env);
    if (info) {
        memset(info, 0, strlen(info));
        free(info);
    }
    return rc;
}

/* "; stderr: ..." with the plugin's words, one line. */
static const char *stderr_suffix(plugin_run *pr) {
    ms_buf *b = &pr->errtext;
    while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == ' ' || b->data[b->len - 1] == '\r'))
        b->len--;
    if (!b->len || !ms_buf_reserve(b, 1)) return "";
    b->data[b->len] = '\0';
    for (size_t i = 0; i < b->len; i++)
        if (b->data[i] == '\n' || b->data[i] == '\r' || b->data[i] == '\t') b->data[i] = ' ';
    return b->data;
}

/* status of the ExecCredential on stdout into ec. */
static ms_rc take_answer(ms_exec_credential *ec, const ms_buf *out, ms_error *err) {
    cJSON *j = cJSON_ParseWithLength(out->data ? out->data : "", out->len);
    ms_rc rc = MS_OK;
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(j, "apiVersion");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "status");
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(st, "token");
    const cJSON *crt = cJSON_GetObjectItemCaseSensitive(st, "clientCertificateData");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(st, "clientKeyData");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(st, "expirationTimestamp");
    const char *t = cJSON_IsString(tok) && *tok->valuestring ? tok->valuestring : NULL;
    const char *c = cJSON_IsString(crt) && *crt->valuestring ? crt->valuestring : NULL;
    const char *k = cJSON_IsString(key) && *key->valuestring ? key->valuestring : NULL;
    double expires = 0;
    if (!cJSON_IsObject(j)) {
        rc = ms_error_set(err, MS_EINVAL, "decoding stdout: not a JSON object");
    } else if (!cJSON_IsString(api) || !cJSON_IsString(kind) || strcmp(kind->valuestring, "ExecCredential") != 0) {
        rc = ms_error_set(err, MS_EINVAL, "decoding stdout: expected kind ExecCredential with an apiVersion");
    } else if (strcmp(api->valuestring, ec->x.api_version) != 0) {
        rc = ms_error_set(err, MS_EINVAL, "exec plugin is configured to use API version %s, plugin returned version %s",
                          ec->x.api_version, api->valuestring);
    } else if (!st || cJSON_IsNull(st)) {
        rc = ms_error_set(err, MS_EINVAL, "exec plugin didn't return a status field");
    } else if ((tok && !cJSON_IsNull(tok) && !cJSON_IsString(tok)) || (crt && !cJSON_IsNull(crt) && !cJSON_IsString(crt)) ||
               (key && !cJSON_IsNull(key) && !cJSON_IsString(key)) || !cJSON_IsObject(st)) {
        rc = ms_error_set(err, MS_EINVAL, "decoding stdout: status: token, clientCertificateData and clientKeyData are strings");
    } else if (!t && !c && !k) {
        rc = ms_error_set(err, MS_EINVAL, "exec plugin didn't return a token or cert/key pair");
    } else if (!c != !k) {
        rc = ms_error_set(err, MS_EINVAL, "exec plugin returned only certificate or key, not both");
    } else if (c && (!strstr(c, "-----BEGIN") || !strstr(k, "-----BEGIN"))) {
        rc = ms_error_set(err, MS_EINVAL, "failed parsing client key/certificate: no PEM data found");
    } else if (exp && !cJSON_IsNull(exp) &&
               (!cJSON_IsString(exp) || ms_parse_rfc3339(exp->valuestring, &expires) != MS_OK)) {
        rc = ms_error_set(err, MS_EINVAL, "decoding stdout: status.expirationTimestamp: not an RFC 3339 time");
    }
    if (rc == MS_OK) {
        drop_creds(ec);
        if ((t && !(ec->token = strdup(t))) || (c && !(ec->cert = strdup(c))) || (k && !(ec->key = strdup(k)))) {
            drop_creds(ec);
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        } else {
            ec->cert_len = c ? strlen(c) : 0;
            ec->key_len = k ? strlen(k) : 0;
            ec->expires = expires;
            ec->valid = true;
            ec->generation++;
        }
    }
    /* the answer held secrets */
    if (t) memset(tok->valuestring, 0, strlen(t));
    if (k) memset(key->valuestring, 0, strlen(k));
    cJSON_Delete(j);
    return rc;
}

static ms_rc refresh_locked(ms_exec_credential *ec, ms_error *err) {
    bool interactive = false;
    if (ec->x.interactive != MS_EXEC_INTERACTIVE_NEVER) {
        interactive = isatty(ec->stdin_fd) == 1;
        if (!interactive && ec->x.interactive == MS_EXEC_INTERACTIVE_ALWAYS)
            return ms_error_set(err, MS_EINVAL, "exec plugin cannot support interactive mode: standard input is not a terminal");
    }
    ec->runs++;
    plugin_run pr = {0};
    ms_rc rc = spawn_and_wait(ec, interactive, &pr, err);
    if (rc == MS_OK) {
        const char *said = stderr_suffix(&pr);
        if (WIFSIGNALED(pr.status))
            rc = ms_error_set(err, MS_EIO, "exec: executable %s was killed by signal %d%s%s", ec->x.command,
                              WTERMSIG(pr.status), *said ? ": " : "", said);
        else if (!WIFEXITED(pr.status) || WEXITSTATUS(pr.status) != 0)
            rc = ms_error_set(err, MS_EIO, "exec: executable %s failed with exit code %d%s%s", ec->x.command,
                              WIFEXITED(pr.status) ? WEXITSTATUS(pr.status) : -1, *said ? ": " : "", said);
        else if ((rc = take_answer(ec, &pr.out, err)) == MS_OK && *said)
            ms_log(ec->log, MS_LOG_INFO, "credential plugin's stderr", "user", ec->user, "stderr", said, NULL);
    }
    if (pr.out.data) memset(pr.out.data, 0, pr.out.len);
    ms_buf_free(&pr.out);
    ms_buf_free(&pr.errtext);
    if (rc == MS_OK) {
        char until[MS_RFC3339_MAX];
        ms_log(ec->log, MS_LOG_INFO, "ran the credential plugin", "user", ec->user, "command", ec->x.command, "expires",
               ec->expires > 0 ? ms_time_rfc3339(ec->expires, 0, until, sizeof until) : "never", NULL);
    }
    return rc;
}

ms_rc ms_exec_credential_get(ms_exec_credential *ec, ms_exec_creds *out, ms_error *err) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&ec->mu);
    ms_rc rc = MS_OK;
    /* expired once the time has passed, as client-go's credsExpired */
    if (!ec->valid || (ec->expires > 0 && ec->wall(ec->wall_ctx) > ec->expires)) {
        drop_creds(ec);
        rc = refresh_locked(ec, err);
    }
    if (rc == MS_OK) {
        out->generation = ec->generation;
        out->cert_len = ec->cert_len;
        out->key_len = ec->key_len;
        if ((ec->token && !(out->token = strdup(ec->token))) ||
            (ec->cert && !(out->cert = strndup(ec->cert, ec->cert_len))) ||
            (ec->key && !(out->key = strndup(ec->key, ec->key_len)))) {
            ms_exec_creds_free(out);
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        }
    }
    pthread_mutex_unlock(&ec->mu);
    if (rc != MS_OK && rc != MS_ENOMEM) ms_error_prefix(err, "user %s: getting credentials", ec->user);
    return rc;
}

void ms_exec_creds_free(ms_exec_creds *c) {
    if (!c) return;
    wipe(&c->token, c->token ? strlen(c->token) : 0);
    wipe(&c->cert, c->cert_len);
    wipe(&c->key, c->key_len);
    memset(c, 0, sizeof *c);
}

void ms_exec_credential_invalidate(ms_exec_credential *ec, uint64_t generation) {
    pthread_mutex_lock(&ec->mu);
    if (ec->valid && ec->generation == generation) ec->valid = false;
    pthread_mutex_unlock(&ec->mu);
}

uint64_t ms_exec_credential_runs(ms_exec_credential *ec) {
    pthread_mutex_lock(&ec->mu);
    uint64_t n = ec->runs;
    pthread_mutex_unlock(&ec->mu);
    return n;
}
