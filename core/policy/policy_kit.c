#include "policy/policy_kit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "moonsched/decode.h"
#include <cjson/cJSON.h>

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/rel, made absolute by realpath when it exists. */
static bool join(char *out, const char *dir, const char *rel) {
    char p[PATH_MAX];
    int n = snprintf(p, sizeof p, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof p) return false;
    return realpath(p, out) != NULL;
}

ms_rc ms_policy_kit_find(ms_policy_kit *k, ms_error *err) {
    memset(k, 0, sizeof *k);
    ssize_t n = readlink("/proc/self/exe", k->exe, sizeof k->exe - 1);
    if (n <= 0) return ms_error_set(err, MS_ENOENT, "cannot tell where this binary is: %s", strerror(errno));
    k->exe[n] = '\0';
    char dir[PATH_MAX];
    memcpy(dir, k->exe, (size_t)n + 1);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    char probe[PATH_MAX];
    /* Installed, relocatable: a DESTDIR staging tree works as the final one. */
    if (join(k->lua, dir, "../share/moonsched/kit") && join(probe, k->lua, "moonsched/kit.lua") &&
        join(k->types, dir, "../share/moonsched/types") &&
        join(k->lib, dir, "../lib/moonsched/libmoonsched.so") && is_file(k->lib))
        return MS_OK;
    /* The build directory of a checkout. */
    if (join(k->lua, dir, "../lua/kit") && join(probe, k->lua, "moonsched/kit.lua") &&
        join(k->types, dir, "../lua/types") && join(k->lib, dir, "libmoonsched.so") && is_file(k->lib))
        return MS_OK;
    return ms_error_set(err, MS_ENOENT,
                        "the policy kit is not beside %s: looked for %s/../share/moonsched/kit "
                        "and %s/../lib/moonsched/libmoonsched.so (make install), and for the "
                        "build tree's libmoonsched.so and ../lua/kit",
                        k->exe, dir, dir);
}

ms_rc ms_policy_test(const ms_policy_kit *k, char *const *specs, int nspecs, char *const *busted_args,
                     int nbusted, ms_error *err) {
    /* The kit first; the caller's LUA_PATH (or Lua's default, ";;") after. */
    ms_buf path = {0};
    const char *old = getenv("LUA_PATH");
    ms_buf_printf(&path, "%s/?.lua;./?.lua;%s", k->lua, old ? old : ";");
    char *lua_path = ms_buf_take(&path);
    if (!lua_path || setenv("LUA_PATH", lua_path, 1) != 0 || setenv("MOONSCHED_LIB", k->lib, 1) != 0 ||
        setenv("MOONSCHED_BIN", k->exe, 1) != 0) {
        free(lua_path);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    free(lua_path);
    char **argv = calloc((size_t)nspecs + (size_t)nbusted + 4, sizeof *argv);
    if (!argv) return ms_error_set(err, MS_ENOMEM, "out of memory");
    int n = 0;
    argv[n++] = "busted";
    argv[n++] = "--lua=luajit";
    for (int i = 0; i < nbusted; i++) argv[n++] = busted_args[i];
    for (int i = 0; i < nspecs; i++) argv[n++] = specs[i];
    if (nspecs == 0) argv[n++] = ".";
    fflush(NULL);
    execvp("busted", argv);
    int e = errno;
    free(argv);
    return ms_error_set(err, MS_ENOENT,
                        "running busted: %s (policy test needs busted and luajit: Debian's "
                        "lua-busted and luajit packages, or `luarocks install busted`)",
                        strerror(e));
}

/* Creates dir/name with text unless it exists. */
static ms_rc write_new(const char *dir, const char *name, const char *text, FILE *out, ms_error *err) {
    char p[PATH_MAX];
    int n = snprintf(p, sizeof p, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof p) return ms_error_set(err, MS_EINVAL, "%s/%s: path too long", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST) {
        fprintf(out, "kept     %s (it exists)\n", p);
        return MS_OK;
    }
    if (fd < 0) return ms_error_set(err, MS_EIO, "%s: %s", p, strerror(errno));
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return ms_error_set(err, MS_EIO, "%s: %s", p, strerror(e));
        }
        done += (size_t)w;
    }
    if (close(fd) != 0) return ms_error_set(err, MS_EIO, "%s: %s", p, strerror(errno));
    fprintf(out, "created  %s\n", p);
    return MS_OK;
}

/* The kit's template `name` (lua/kit/init/) into dir. */
static ms_rc copy_template(const ms_policy_kit *k, const char *dir, const char *name, FILE *out,
                           ms_error *err) {
    char src[PATH_MAX];
    int n = snprintf(src, sizeof src, "%s/init/%s", k->lua, name);
    if (n < 0 || (size_t)n >= sizeof src) return ms_error_set(err, MS_EINVAL, "%s: path too long", k->lua);
    char *text = NULL;
    size_t len = 0;
    ms_rc rc = ms_read_file(src, 0, &text, &len, err);
    if (rc != MS_OK) return rc;
    rc = write_new(dir, name, text, out, err);
    free(text);
    return rc;
}

/* LuaLS: LuaJIT, the annotations as a library, the sandbox's missing
 * libraries switched off, so that the editor flags what the sandbox
 * refuses. */
static char *luarc_json(const ms_policy_kit *k) {
    cJSON *o = cJSON_CreateObject();
    cJSON *lib = cJSON_AddArrayToObject(o, "workspace.library");
    cJSON_AddItemToArray(lib, cJSON_CreateString(k->types));
    cJSON_AddItemToArray(lib, cJSON_CreateString(k->lua));
    cJSON_AddStringToObject(o, "runtime.version", "LuaJIT");
    cJSON *builtin = cJSON_AddObjectToObject(o, "runtime.builtin");
    static const char *const off[] = {"io", "debug", "coroutine", "package", "ffi", "jit", "utf8"};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) cJSON_AddStringToObject(builtin, off[i], "disable");
    cJSON_AddStringToObject(o, "workspace.checkThirdParty", "Disable");
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text) return NULL;
    size_t n = strlen(text);
    char *withnl = realloc(text, n + 2);
    if (!withnl) {
        free(text);
        return NULL;
    }
    memcpy(withnl + n, "\n", 2);
    return withnl;
}

ms_rc ms_policy_init(const ms_policy_kit *k, const char *dir, FILE *out, ms_error *err) {
    ms_rc rc;
    if ((rc = copy_template(k, dir, "policy.lua", out, err)) != MS_OK) return rc;
    if ((rc = copy_template(k, dir, "policy_spec.lua", out, err)) != MS_OK) return rc;
    ms_buf b = {0};
    ms_buf_printf(&b,
                  "-- luacheck: policies against the sandbox's globals, specs with busted's.\n"
                  "stds.moonsched = dofile([==[%s/luacheck-std.lua]==])\n"
                  "std = \"moonsched\"\n"
                  "files[\"**/*_spec.lua\"] = { std = \"luajit+busted\" }\n",
                  k->lua);
    char *rc_text = ms_buf_take(&b);
    if (!rc_text) return ms_error_set(err, MS_ENOMEM, "out of memory");
    rc = write_new(dir, ".luacheckrc", rc_text, out, err);
    free(rc_text);
    if (rc != MS_OK) return rc;
    char *luarc = luarc_json(k);
    if (!luarc) return ms_error_set(err, MS_ENOMEM, "out of memory");
    rc = write_new(dir, ".luarc.json", luarc, out, err);
    free(luarc);
    return rc;
}
