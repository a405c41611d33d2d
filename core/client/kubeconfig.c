/* kubeconfig files and the in-cluster service account. */
#include "client/kubeconfig.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/quote.h"
#include "codec/base64.h"
#include "moonsched/decode.h"

#define MAX_FILE_SIZE (16u << 20)

/* One parsed file: its top-level mapping (or NULL for an empty file), the
 * absolute directory that relative paths resolve against, and its name for
 * errors. */
typedef struct kcfile {
    cJSON **docs;
    size_t ndocs;
    const cJSON *root;
    char *dir;
    char *source;
} kcfile;

static void kcfile_free(kcfile *f) {
    for (size_t i = 0; i < f->ndocs; i++) cJSON_Delete(f->docs[i]);
    free(f->docs);
    free(f->dir);
    free(f->source);
    memset(f, 0, sizeof *f);
}

/* A whole file, NUL-terminated. A missing file is MS_ENOENT: KUBECONFIG
 * may name files that do not exist. */
static ms_rc read_file(const char *path, char **out, size_t *len, ms_error *err) {
    *out = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return ms_error_set(err, errno == ENOENT ? MS_ENOENT : MS_EIO, "%s: %s", path, strerror(errno));
    ms_buf b = {0};
    ms_rc rc = MS_OK;
    while (ms_buf_reserve(&b, 4096)) {
        if (b.len + 1 >= MAX_FILE_SIZE) {
            rc = ms_error_set(err, MS_EINVAL, "%s: larger than %u bytes", path, MAX_FILE_SIZE);
            break;
        }
        size_t room = b.cap - b.len - 1;
        if (room > MAX_FILE_SIZE - 1 - b.len) room = MAX_FILE_SIZE - 1 - b.len;
        size_t r = fread(b.data + b.len, 1, room, fp);
        b.len += r;
        if (r == 0) {
            if (ferror(fp)) rc = ms_error_set(err, MS_EIO, "%s: read error", path);
            break;
        }
    }
    fclose(fp);
    if (rc == MS_OK && b.failed) rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    if (rc != MS_OK) {
        ms_buf_free(&b);
        return rc;
    }
    b.data[b.len] = '\0';
    *out = b.data;
    *len = b.len;
    return MS_OK;
}

/* Absolute directory of path (relative paths against the working directory). */
static char *abs_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash) {
        dir = strdup(".");
    } else if (slash == path) {
        dir = strdup("/");
    } else {
        dir = strndup(path, (size_t)(slash - path));
    }
    if (!dir || dir[0] == '/') return dir;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return dir;
    size_t n = strlen(cwd) + strlen(dir) + 2;
    char *full = malloc(n);
    if (full) snprintf(full, n, "%s/%s", cwd, strcmp(dir, ".") ? dir : "");
    if (full && full[strlen(full) - 1] == '/' && strlen(full) > 1) full[strlen(full) - 1] = '\0';
    free(dir);
    return full;
}

static char *resolve_path(const char *dir, const char *p) {
    if (!p || !*p) return NULL;
    if (p[0] == '/' || !dir) return strdup(p);
    size_t n = strlen(dir) + strlen(p) + 2;
    char *full = malloc(n);
    if (full) snprintf(full, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", p);
    return full;
}

static ms_rc parse_text(kcfile *f, const char *buf, size_t len, const char *dir, const char *source,
                        ms_error *err) {
    memset(f, 0, sizeof *f);
    f->source = strdup(source ? source : "kubeconfig");
    if (dir) {
        f->dir = strdup(dir);
    } else {
        char cwd[4096];
        f->dir = strdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
    }
    if (!f->source || !f->dir) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = ms_yaml_parse(buf, len, &f->docs, &f->ndocs, err);
    if (rc != MS_OK) {
        ms_error_prefix(err, "%s", f->source);
        return rc;
    }
    /* Like client-go, the file's first document is the configuration. */
    const cJSON *root = f->ndocs ? f->docs[0] : NULL;
    if (root && cJSON_IsNull(root)) root = NULL;
    if (root && !cJSON_IsObject(root))
        return ms_error_set(err, MS_EINVAL, "%s: expected a mapping at the top level", f->source);
    f->root = root;
    return MS_OK;
}

static ms_rc load_path(kcfile *f, const char *path, ms_error *err) {
    char *buf;
    size_t len;
    ms_rc rc = read_file(path, &buf, &len, err);
    if (rc != MS_OK) return rc;
    char *dir = abs_dir(path);
    if (!dir) {
        free(buf);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    rc = parse_text(f, buf, len, dir, path, err);
    free(dir);
    free(buf);
    return rc;
}

/* ---- typed field access with paths in errors ---- */

typedef struct where {
    const kcfile *f;
    char path[160];
} where;

static ms_rc type_error(const where *w, const char *key, const char *want, ms_error *err) {
    return ms_error_set(err, MS_EINVAL, "%s: %s.%s: expected %s", w->f->source, w->path, key, want);
}

/* A string field: strings, and numbers by their source text (a token of
 * digits is still a token). NULL when absent, null or empty. */
static ms_rc get_str(const where *w, const cJSON *o, const char *key, const char **out, ms_error *err) {
    *out = NULL;
    const cJSON *j = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (cJSON_IsString(j)) {
        *out = *j->valuestring ? j->valuestring : NULL;
        return MS_OK;
    }
    if (cJSON_IsNumber(j) && j->valuestring) {
        *out = j->valuestring;
        return MS_OK;
    }
    return type_error(w, key, "a string", err);
}

static ms_rc get_bool(const where *w, const cJSON *o, const char *key, bool *out, ms_error *err) {
    *out = false;
    const cJSON *j = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsBool(j)) return type_error(w, key, "true or false", err);
    *out = cJSON_IsTrue(j);
    return MS_OK;
}

static ms_rc get_b64(const where *w, const cJSON *o, const char *key, char **out, size_t *len,
                     ms_error *err) {
    const char *s;
    ms_rc rc = get_str(w, o, key, &s, err);
    if (rc != MS_OK || !s) return rc;
    size_t bad = 0;
    rc = ms_base64_decode(s, strlen(s), out, len, &bad);
    if (rc == MS_EINVAL)
        return ms_error_set(err, rc, "%s: %s.%s: illegal base64 data at input byte %zu", w->f->source,
                            w->path, key, bad);
    if (rc != MS_OK) return ms_error_set(err, rc, "out of memory");
    return MS_OK;
}

static ms_rc get_str_list(const where *w, const cJSON *o, const char *key, char ***out, size_t *n,
                          ms_error *err) {
    const cJSON *j = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsArray(j)) return type_error(w, key, "a list of strings", err);
    size_t cnt = (size_t)cJSON_GetArraySize(j);
    char **v = calloc(cnt ? cnt : 1, sizeof *v);
    if (!v) return ms_error_set(err, MS_ENOMEM, "out of memory");
    *out = v;
    const cJSON *it;
    cJSON_ArrayForEach(it, j) {
        if (!cJSON_IsString(it)) return type_error(w, key, "a list of strings", err);
        if (!(v[(*n)++] = strdup(it->valuestring))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    return MS_OK;
}

/* The entry named `name` in the list `section` (clusters, users, contexts)
 * of a file: its inner object (cluster/user/context) and its index. */
typedef struct found {
    const kcfile *f;
    const cJSON *inner;
    int index;
} found;

static ms_rc find_named(const kcfile *f, const char *section, const char *inner_key, const char *name,
                        found *out, ms_error *err) {
    out->f = NULL;
    if (!f->root) return MS_OK;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(f->root, section);
    if (!list || cJSON_IsNull(list)) return MS_OK;
    if (!cJSON_IsArray(list)) return ms_error_set(err, MS_EINVAL, "%s: %s: expected a list", f->source, section);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, list) {
        if (!cJSON_IsObject(it))
            return ms_error_set(err, MS_EINVAL, "%s: %s[%d]: expected a mapping", f->source, section, i);
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0) {
            const cJSON *in = cJSON_GetObjectItemCaseSensitive(it, inner_key);
            if (in && !cJSON_IsNull(in) && !cJSON_IsObject(in))
                return ms_error_set(err, MS_EINVAL, "%s: %s[%d].%s: expected a mapping", f->source, section, i,
                                    inner_key);
            out->f = f;
            out->inner = cJSON_IsObject(in) ? in : NULL;
            out->index = i;
            return MS_OK;
        }
        i++;
    }
    return MS_OK;
}

/* First file that defines the name wins (KUBECONFIG merging). */
static ms_rc find_in(const kcfile *files, size_t nfiles, const char *section, const char *inner_key,
                     const char *name, found *out, ms_error *err) {
    for (size_t i = 0; i < nfiles; i++) {
        ms_rc rc = find_named(&files[i], section, inner_key, name, out, err);
        if (rc != MS_OK || out->f) return rc;
    }
    return MS_OK;
}

static ms_rc set_str(char **dst, const char *v, ms_error *err) {
    if (!v) return MS_OK;
    if (!(*dst = strdup(v))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

static ms_rc set_path(char **dst, const kcfile *f, const char *v, ms_error *err) {
    if (!v) return MS_OK;
    if (!(*dst = resolve_path(f->dir, v))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

/* "https://" when the server has no scheme, as client-go's DefaultServerURL
 * does; no trailing '/', so that paths can be appended. */
static ms_rc set_server(ms_kubeconfig *kc, const char *source, const char *s, ms_error *err) {
    size_t n = strlen(s);
    while (n && s[n - 1] == '/') n--;
    bool scheme = strstr(s, "://") != NULL;
    size_t total = n + (scheme ? 0 : 8) + 1;
    if (!(kc->server = malloc(total))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    snprintf(kc->server, total, "%s%.*s", scheme ? "" : "https://", (int)n, s);
    char q[MS_QUOTE_SIZE];
    const char *host = strstr(kc->server, "://");
    if (strncmp(kc->server, "https://", 8) != 0 && strncmp(kc->server, "http://", 7) != 0)
        return ms_error_set(err, MS_EINVAL, "%s: cluster %s: server %s: only http and https are supported", source,
                            kc->cluster_name ? kc->cluster_name : "", ms_quote(q, s));
    /* "//" or "https:///" would leave a URL without a host */
    if (host[3] == '\0' || host[3] == '/')
        return ms_error_set(err, MS_EINVAL, "%s: cluster %s: server %s: no host", source,
                            kc->cluster_name ? kc->cluster_name : "", ms_quote(q, s));
    return MS_OK;
}

static ms_rc read_cluster(ms_kubeconfig *kc, const found *c, ms_error *err) {
    where w = {.f = c->f};
    snprintf(w.path, sizeof w.path, "clusters[%d].cluster", c->index);
    const cJSON *o = c->inner;
    const char *server, *tsn, *ca, *proxy;
    ms_rc rc;
    if ((rc = get_str(&w, o, "server", &server, err)) != MS_OK ||
        (rc = get_str(&w, o, "tls-server-name", &tsn, err)) != MS_OK ||
        (rc = get_str(&w, o, "certificate-authority", &ca, err)) != MS_OK ||
        (rc = get_str(&w, o, "proxy-url", &proxy, err)) != MS_OK ||
        (rc = get_bool(&w, o, "insecure-skip-tls-verify", &kc->insecure_skip_tls_verify, err)) != MS_OK ||
        (rc = get_b64(&w, o, "certificate-authority-data", &kc->ca_data, &kc->ca_len, err)) != MS_OK)
        return rc;
    if (!server) return ms_error_set(err, MS_EINVAL, "%s: cluster %s has no server defined", c->f->source, kc->cluster_name);
    if (ca && kc->ca_data)
        return ms_error_set(err, MS_EINVAL,
                            "%s: cluster %s: certificate-authority-data and certificate-authority are both specified",
                            c->f->source, kc->cluster_name);
    if ((rc = set_server(kc, c->f->source, server, err)) != MS_OK || (rc = set_str(&kc->tls_server_name, tsn, err)) != MS_OK ||
        (rc = set_path(&kc->ca_file, c->f, ca, err)) != MS_OK || (rc = set_str(&kc->proxy_url, proxy, err)) != MS_OK)
        return rc;
    if (kc->insecure_skip_tls_verify && (kc->ca_file || kc->ca_data))
        return ms_error_set(err, MS_EINVAL,
                            "%s: cluster %s: a certificate authority cannot be combined with insecure-skip-tls-verify",
                            c->f->source, kc->cluster_name);
    return MS_OK;
}

static ms_rc read_extra(ms_kubeconfig *kc, const where *w, const cJSON *o, ms_error *err) {
    const cJSON *j = o ? cJSON_GetObjectItemCaseSensitive(o, "as-user-extra") : NULL;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsObject(j)) return type_error(w, "as-user-extra", "a mapping of lists of strings", err);
    size_t total = 0;
    const cJSON *k, *v;
    cJSON_ArrayForEach(k, j) {
        if (!cJSON_IsArray(k)) return type_error(w, "as-user-extra", "a mapping of lists of strings", err);
        total += (size_t)cJSON_GetArraySize(k);
    }
    if (!(kc->impersonate_extra = calloc(total ? total : 1, sizeof(char *))))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    cJSON_ArrayForEach(k, j) {
        cJSON_ArrayForEach(v, k) {
            if (!cJSON_IsString(v)) return type_error(w, "as-user-extra", "a mapping of lists of strings", err);
            size_t n = strlen(k->string) + strlen(v->valuestring) + 2;
            char *p = malloc(n);
            if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
            snprintf(p, n, "%s=%s", k->string, v->valuestring);
            kc->impersonate_extra[kc->nimpersonate_extra++] = p;
        }
    }
    return MS_OK;
}

/* The deprecated in-tree providers left client-go in 1.26; each has an
 * exec plugin in its place. */
static const char *auth_provider_replacement(const char *name) {
    if (!name) return "an exec credential plugin";
    if (strcmp(name, "gcp") == 0) return "the exec credential plugin gke-gcloud-auth-plugin (gcloud components install gke-gcloud-auth-plugin)";
    if (strcmp(name, "azure") == 0) return "the exec credential plugin kubelogin (kubelogin convert-kubeconfig)";
    if (strcmp(name, "oidc") == 0) return "an exec credential plugin such as kubelogin (kubectl oidc-login)";
    return "an exec credential plugin";
}

static ms_rc refuse_auth_provider(const kcfile *f, const char *user, const cJSON *ap, ms_error *err) {
    const cJSON *nm = cJSON_IsObject(ap) ? cJSON_GetObjectItemCaseSensitive(ap, "name") : NULL;
    const char *name = cJSON_IsString(nm) && *nm->valuestring ? nm->valuestring : NULL;
    char q[MS_QUOTE_SIZE];
    return ms_error_set(err, MS_EINVAL,
                        "%s: user %s: the auth-provider %s is not supported (client-go removed the in-tree "
                        "providers in Kubernetes 1.26); use %s",
                        f->source, user, name ? ms_quote(q, name) : "\"\"", auth_provider_replacement(name));
}

static ms_rc read_exec_env(ms_kube_exec *x, const where *w, const cJSON *o, const char *user, ms_error *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "env");
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsArray(j)) return type_error(w, "env", "a list of {name, value}", err);
    size_t cnt = (size_t)cJSON_GetArraySize(j);
    if (!(x->env = calloc(cnt ? cnt : 1, sizeof *x->env))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    const cJSON *it;
    cJSON_ArrayForEach(it, j) {
        const cJSON *n = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "name") : NULL;
        const cJSON *v = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "value") : NULL;
        if (!cJSON_IsObject(it) || (n && !cJSON_IsString(n)) || (v && !cJSON_IsNull(v) && !cJSON_IsString(v)))
            return type_error(w, "env", "a list of {name, value}", err);
        if (!n || !*n->valuestring || strchr(n->valuestring, '='))
            return ms_error_set(err, MS_EINVAL,
                                "%s: user %s: env variable name must be specified for %s to use exec authentication plugin",
                                w->f->source, user, user);
        const char *val = cJSON_IsString(v) ? v->valuestring : "";
        size_t len = strlen(n->valuestring) + strlen(val) + 2;
        char *kv = malloc(len);
        if (!kv) return ms_error_set(err, MS_ENOMEM, "out of memory");
        snprintf(kv, len, "%s=%s", n->valuestring, val);
        x->env[x->nenv++] = kv;
    }
    return MS_OK;
}

/* users[].user.exec, checked as client-go's clientcmd validation and
 * exec.newAuthenticator check it. */
static ms_rc read_exec(ms_kubeconfig *kc, const kcfile *f, const char *wpath, const cJSON *o, ms_error *err) {
    where w = {.f = f};
    snprintf(w.path, sizeof w.path, "%.150s.exec", wpath);
    if (!cJSON_IsObject(o)) return ms_error_set(err, MS_EINVAL, "%s: %s: expected a mapping", f->source, w.path);
    const char *user = kc->user_name;
    ms_kube_exec *x = calloc(1, sizeof *x);
    if (!x) return ms_error_set(err, MS_ENOMEM, "out of memory");
    kc->exec = x;
    const char *api, *cmd, *mode, *hint;
    bool info;
    ms_rc rc;
    if ((rc = get_str(&w, o, "apiVersion", &api, err)) != MS_OK || (rc = get_str(&w, o, "command", &cmd, err)) != MS_OK ||
        (rc = get_str(&w, o, "interactiveMode", &mode, err)) != MS_OK ||
        (rc = get_str(&w, o, "installHint", &hint, err)) != MS_OK ||
        (rc = get_bool(&w, o, "provideClusterInfo", &info, err)) != MS_OK ||
        (rc = get_str_list(&w, o, "args", &x->args, &x->nargs, err)) != MS_OK ||
        (rc = read_exec_env(x, &w, o, user, err)) != MS_OK)
        return rc;
    if (!cmd)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: command must be specified for %s to use exec authentication plugin",
                            f->source, user, user);
    if (!api)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: apiVersion must be specified for %s to use exec authentication plugin",
                            f->source, user, user);
    char q[MS_QUOTE_SIZE];
    bool v1 = strcmp(api, "client.authentication.k8s.io/v1") == 0;
    if (!v1 && strcmp(api, "client.authentication.k8s.io/v1beta1") != 0)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: exec plugin: invalid apiVersion %s", f->source, user,
                            ms_quote(q, api));
    /* v1 made the mode explicit; v1beta1 kept its old default. */
    if (!mode && v1)
        return ms_error_set(err, MS_EINVAL,
                            "%s: user %s: interactiveMode must be specified for %s to use exec authentication plugin",
                            f->source, user, user);
    if (!mode || strcmp(mode, "IfAvailable") == 0)
        x->interactive = MS_EXEC_INTERACTIVE_IF_AVAILABLE;
    else if (strcmp(mode, "Never") == 0)
        x->interactive = MS_EXEC_INTERACTIVE_NEVER;
    else if (strcmp(mode, "Always") == 0)
        x->interactive = MS_EXEC_INTERACTIVE_ALWAYS;
    else
        return ms_error_set(err, MS_EINVAL,
                            "%s: user %s: invalid interactiveMode for %s: %s (Never, IfAvailable or Always)", f->source,
                            user, user, ms_quote(q, mode));
    x->provide_cluster_info = info;
    /* A bare name is looked up in PATH; a path is relative to the file. */
    if ((rc = set_str(&x->api_version, api, err)) != MS_OK || (rc = set_str(&x->install_hint, hint, err)) != MS_OK ||
        (rc = strchr(cmd, '/') ? set_path(&x->command, f, cmd, err) : set_str(&x->command, cmd, err)) != MS_OK)
        return rc;
    return MS_OK;
}

/* clusters[].cluster.extensions[name=client.authentication.k8s.io/exec]
 * for KUBERNETES_EXEC_INFO's spec.cluster.config. */
static ms_rc read_exec_extension(ms_kube_exec *x, const found *cl, ms_error *err) {
    const cJSON *ext = cl->inner ? cJSON_GetObjectItemCaseSensitive(cl->inner, "extensions") : NULL;
    if (!cJSON_IsArray(ext)) return MS_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, ext) {
        const cJSON *nm = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "name") : NULL;
        if (!cJSON_IsString(nm) || strcmp(nm->valuestring, "client.authentication.k8s.io/exec") != 0) continue;
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(it, "extension");
        if (!e || cJSON_IsNull(e)) return MS_OK;
        if (!(x->cluster_config = cJSON_PrintUnformatted(e))) return ms_error_set(err, MS_ENOMEM, "out of memory");
        return MS_OK;
    }
    return MS_OK;
}

static ms_rc read_user(ms_kubeconfig *kc, const found *u, ms_error *err) {
    where w = {.f = u->f};
    snprintf(w.path, sizeof w.path, "users[%d].user", u->index);
    const cJSON *o = u->inner;
    const cJSON *ap = o ? cJSON_GetObjectItemCaseSensitive(o, "auth-provider") : NULL;
    if (ap && !cJSON_IsNull(ap)) return refuse_auth_provider(u->f, kc->user_name, ap, err);
    const char *cert, *key, *token, *token_file, *user, *pass, *as;
    ms_rc rc;
    if ((rc = get_str(&w, o, "client-certificate", &cert, err)) != MS_OK ||
        (rc = get_str(&w, o, "client-key", &key, err)) != MS_OK ||
        (rc = get_str(&w, o, "token", &token, err)) != MS_OK ||
        (rc = get_str(&w, o, "tokenFile", &token_file, err)) != MS_OK ||
        (rc = get_str(&w, o, "username", &user, err)) != MS_OK ||
        (rc = get_str(&w, o, "password", &pass, err)) != MS_OK ||
        (rc = get_str(&w, o, "as", &as, err)) != MS_OK ||
        (rc = get_b64(&w, o, "client-certificate-data", &kc->cert_data, &kc->cert_len, err)) != MS_OK ||
        (rc = get_b64(&w, o, "client-key-data", &kc->key_data, &kc->key_len, err)) != MS_OK ||
        (rc = get_str_list(&w, o, "as-groups", &kc->impersonate_groups, &kc->nimpersonate_groups, err)) != MS_OK ||
        (rc = read_extra(kc, &w, o, err)) != MS_OK)
        return rc;
    const char *src = u->f->source, *name = kc->user_name;
    if (cert && kc->cert_data)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: client-certificate-data and client-certificate are both specified",
                            src, name);
    if (key && kc->key_data)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: client-key-data and client-key are both specified", src, name);
    bool has_cert = cert || kc->cert_data, has_key = key || kc->key_data;
    if (has_cert && !has_key)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: client-key-data or client-key must be specified to use a client certificate",
                            src, name);
    if (has_key && !has_cert)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: client-certificate-data or client-certificate must be specified with a client key",
                            src, name);
    if (token && (user || pass))
        return ms_error_set(err, MS_EINVAL, "%s: user %s: more than one authentication method found (token, basicAuth); only one is allowed",
                            src, name);
    if ((kc->nimpersonate_groups || kc->nimpersonate_extra) && !as)
        return ms_error_set(err, MS_EINVAL, "%s: user %s: as-groups or as-user-extra without impersonating a user (as)",
                            src, name);
    if ((rc = set_path(&kc->cert_file, u->f, cert, err)) != MS_OK ||
        (rc = set_path(&kc->key_file, u->f, key, err)) != MS_OK || (rc = set_str(&kc->token, token, err)) != MS_OK ||
        (rc = set_path(&kc->token_file, u->f, token_file, err)) != MS_OK ||
        (rc = set_str(&kc->username, user, err)) != MS_OK || (rc = set_str(&kc->password, pass, err)) != MS_OK ||
        (rc = set_str(&kc->impersonate, as, err)) != MS_OK)
        return rc;
    /* The token file is only a fallback for a missing token (client-go). */
    if (kc->token && kc->token_file) {
        free(kc->token_file);
        kc->token_file = NULL;
    }
    /* Credentials given outright win over a plugin, as in client-go
     * (kubectl --token with an exec user). */
    const cJSON *ex = o ? cJSON_GetObjectItemCaseSensitive(o, "exec") : NULL;
    if (ex && !cJSON_IsNull(ex) && !kc->token && !kc->token_file && !kc->username && !has_cert)
        return read_exec(kc, u->f, w.path, ex, err);
    return MS_OK;
}

static ms_rc resolve(ms_kubeconfig *kc, const kcfile *files, size_t nfiles, const char *context, ms_error *err) {
    bool empty = true;
    for (size_t i = 0; i < nfiles; i++)
        if (files[i].root && cJSON_GetArraySize(files[i].root) > 0) empty = false;
    if (empty) return ms_error_set(err, MS_EINVAL, "invalid configuration: no configuration has been provided");

    const char *ctx_name = context && *context ? context : NULL;
    for (size_t i = 0; !ctx_name && i < nfiles; i++) {
        where w = {.f = &files[i], .path = "(root)"};
        const char *cur;
        ms_rc rc = get_str(&w, files[i].root, "current-context", &cur, err);
        if (rc != MS_OK) return rc;
        ctx_name = cur;
    }
    if (!ctx_name) return ms_error_set(err, MS_EINVAL, "%s: no context chosen (current-context is not set)", files[0].source);

    found c;
    ms_rc rc = find_in(files, nfiles, "contexts", "context", ctx_name, &c, err);
    if (rc != MS_OK) return rc;
    if (!c.f) return ms_error_set(err, MS_EINVAL, "%s: context was not found for specified context: %s", files[0].source, ctx_name);
    where w = {.f = c.f};
    snprintf(w.path, sizeof w.path, "contexts[%d].context", c.index);
    const char *cluster, *user, *ns;
    if ((rc = get_str(&w, c.inner, "cluster", &cluster, err)) != MS_OK ||
        (rc = get_str(&w, c.inner, "user", &user, err)) != MS_OK ||
        (rc = get_str(&w, c.inner, "namespace", &ns, err)) != MS_OK)
        return rc;
    if ((rc = set_str(&kc->context, ctx_name, err)) != MS_OK ||
        (rc = set_str(&kc->namespace_, ns ? ns : "default", err)) != MS_OK)
        return rc;
    if (!cluster) return ms_error_set(err, MS_EINVAL, "%s: context %s: cluster was not specified", c.f->source, ctx_name);
    if ((rc = set_str(&kc->cluster_name, cluster, err)) != MS_OK) return rc;

    found cl;
    if ((rc = find_in(files, nfiles, "clusters", "cluster", cluster, &cl, err)) != MS_OK) return rc;
    if (!cl.f)
        return ms_error_set(err, MS_EINVAL, "%s: context %s: cluster %s was not found", c.f->source, ctx_name, cluster);
    if ((rc = read_cluster(kc, &cl, err)) != MS_OK) return rc;

    /* A context without a user is anonymous, as client-go allows. */
    if (user) {
        if ((rc = set_str(&kc->user_name, user, err)) != MS_OK) return rc;
        found u;
        if ((rc = find_in(files, nfiles, "users", "user", user, &u, err)) != MS_OK) return rc;
        if (!u.f) return ms_error_set(err, MS_EINVAL, "%s: context %s: user %s was not found", c.f->source, ctx_name, user);
        if ((rc = read_user(kc, &u, err)) != MS_OK) return rc;
        if (kc->exec && (rc = read_exec_extension(kc->exec, &cl, err)) != MS_OK) return rc;
    }
    return MS_OK;
}

static ms_rc finish(ms_kubeconfig *kc, kcfile *files, size_t nfiles, const char *context, ms_error *err) {
    ms_rc rc = resolve(kc, files, nfiles, context, err);
    for (size_t i = 0; i < nfiles; i++) kcfile_free(&files[i]);
    if (rc != MS_OK) ms_kubeconfig_free(kc);
    return rc;
}

ms_rc ms_kubeconfig_load_buffer(ms_kubeconfig *kc, const char *buf, size_t len, const char *dir,
                                const char *source, const char *context, ms_error *err) {
    memset(kc, 0, sizeof *kc);
    kcfile f;
    ms_rc rc = parse_text(&f, buf, len, dir, source, err);
    if (rc != MS_OK) {
        kcfile_free(&f);
        return rc;
    }
    return finish(kc, &f, 1, context, err);
}

ms_rc ms_kubeconfig_load_files(ms_kubeconfig *kc, const char *const *paths, size_t npaths, const char *context,
                               ms_error *err) {
    memset(kc, 0, sizeof *kc);
    kcfile *files = calloc(npaths ? npaths : 1, sizeof *files);
    if (!files) return ms_error_set(err, MS_ENOMEM, "out of memory");
    size_t n = 0;
    ms_rc rc = MS_OK;
    for (size_t i = 0; i < npaths; i++) {
        if (!paths[i] || !*paths[i]) continue;
        rc = load_path(&files[n], paths[i], err);
        if (rc == MS_ENOENT && npaths > 1) {   /* KUBECONFIG may name files that do not exist */
            kcfile_free(&files[n]);
            rc = MS_OK;
            continue;
        }
        if (rc != MS_OK) {
            kcfile_free(&files[n]);
            break;
        }
        n++;
    }
    if (rc == MS_OK && n == 0) rc = ms_error_set(err, MS_ENOENT, "none of the kubeconfig files exist");
    if (rc != MS_OK) {
        for (size_t i = 0; i < n; i++) kcfile_free(&files[i]);
        free(files);
        return rc;
    }
    rc = finish(kc, files, n, context, err);
    free(files);
    return rc;
}

ms_rc ms_kubeconfig_load_file(ms_kubeconfig *kc, const char *path, const char *context, ms_error *err) {
    return ms_kubeconfig_load_files(kc, &path, 1, context, err);
}

static char *trim_dup(const char *s, size_t len) {
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    while (len && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
        s++;
        len--;
    }
    return strndup(s, len);
}

ms_rc ms_kubeconfig_in_cluster(ms_kubeconfig *kc, const char *sa_dir, ms_error *err) {
    memset(kc, 0, sizeof *kc);
    const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return ms_error_set(err, MS_ENOENT,
                            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                            "KUBERNETES_SERVICE_PORT must be defined");
    if (!sa_dir) sa_dir = MS_SERVICE_ACCOUNT_DIR;
    ms_rc rc = MS_OK;
    char path[4096];
    char *buf = NULL;
    size_t len;
    /* An IPv6 address needs brackets in a URL. */
    bool v6 = strchr(host, ':') != NULL;
    size_t n = strlen(host) + strlen(port) + 16;
    if (!(kc->server = malloc(n)) || !(kc->context = strdup("")) || !(kc->cluster_name = strdup("")) ||
        !(kc->user_name = strdup(""))) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(kc->server, n, "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);

    snprintf(path, sizeof path, "%s/token", sa_dir);
    if ((rc = read_file(path, &buf, &len, err)) != MS_OK) goto out;
    free(buf);
    buf = NULL;
    if (!(kc->token_file = strdup(path))) goto nomem;

    /* Unlike client-go, which logs and falls back to the system roots, a
     * missing service-account CA is an error: the fallback can only fail
     * later, with a less helpful TLS message. */
    snprintf(path, sizeof path, "%s/ca.crt", sa_dir);
    if ((rc = read_file(path, &buf, &len, err)) != MS_OK) goto out;
    free(buf);
    buf = NULL;
    if (!(kc->ca_file = strdup(path))) goto nomem;

    snprintf(path, sizeof path, "%s/namespace", sa_dir);
    if (read_file(path, &buf, &len, NULL) == MS_OK) {
        kc->namespace_ = trim_dup(buf, len);
        free(buf);
        buf = NULL;
        if (!kc->namespace_) goto nomem;
        if (!*kc->namespace_) {
            free(kc->namespace_);
            kc->namespace_ = NULL;
        }
    }
    if (!kc->namespace_ && !(kc->namespace_ = strdup("default"))) goto nomem;
    return MS_OK;
nomem:
    rc = ms_error_set(err, MS_ENOMEM, "out of memory");
out:
    free(buf);
    ms_kubeconfig_free(kc);
    return rc;
}

ms_rc ms_kubeconfig_load_default(ms_kubeconfig *kc, const char *path, const char *context, ms_error *err) {
    if (path && *path) return ms_kubeconfig_load_file(kc, path, context, err);
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    if (host && *host) return ms_kubeconfig_in_cluster(kc, NULL, err);
    const char *env = getenv("KUBECONFIG");
    if (env && *env) {
        char *copy = strdup(env);
        size_t cap = 1;
        for (const char *p = env; *p; p++) cap += *p == ':';
        const char **paths = calloc(cap, sizeof *paths);
        if (!copy || !paths) {
            free(copy);
            free(paths);
            memset(kc, 0, sizeof *kc);
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
        size_t n = 0;
        char *save = NULL;
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) paths[n++] = tok;
        ms_rc rc = ms_kubeconfig_load_files(kc, paths, n, context, err);
        free(paths);
        free(copy);
        return rc;
    }
    const char *home = getenv("HOME");
    if (!home || !*home) {
        memset(kc, 0, sizeof *kc);
        return ms_error_set(err, MS_ENOENT, "no kubeconfig: not in a cluster, and neither KUBECONFIG nor HOME is set");
    }
    char p[4096];
    snprintf(p, sizeof p, "%s/.kube/config", home);
    return ms_kubeconfig_load_file(kc, p, context, err);
}

static void free_list(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void exec_free(ms_kube_exec *x) {
    if (!x) return;
    free(x->api_version);
    free(x->command);
    free_list(x->args, x->nargs);
    free_list(x->env, x->nenv);
    free(x->install_hint);
    free(x->cluster_config);
    free(x);
}

void ms_kubeconfig_free(ms_kubeconfig *kc) {
    if (!kc) return;
    char **strs[] = {&kc->context,   &kc->cluster_name, &kc->user_name, &kc->namespace_, &kc->server,
                     &kc->tls_server_name, &kc->ca_file, &kc->ca_data,   &kc->proxy_url, &kc->cert_file,
                     &kc->cert_data, &kc->key_file,     &kc->key_data,  &kc->token,      &kc->token_file,
                     &kc->username,  &kc->password,     &kc->impersonate};
    /* secrets do not linger in freed memory */
    if (kc->key_data) memset(kc->key_data, 0, kc->key_len);
    if (kc->token) memset(kc->token, 0, strlen(kc->token));
    if (kc->password) memset(kc->password, 0, strlen(kc->password));
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) free(*strs[i]);
    free_list(kc->impersonate_groups, kc->nimpersonate_groups);
    free_list(kc->impersonate_extra, kc->nimpersonate_extra);
    exec_free(kc->exec);
    memset(kc, 0, sizeof *kc);
}
