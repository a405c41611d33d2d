/* The check that the Lua side of policies and the C headers agree: every
 * generated declaration has the C size, alignment, field offsets and field
 * sizes in what LuaJIT's FFI makes of it; every MS_* constant the runtime's
 * Lua modules name exists; no runtime module writes a bare number where a
 * result code or an operation belongs. It fails when a C struct or enum
 * changes and the Lua side does not follow. */
#include "testutil.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "policy/lua_abi.h"
#include "policy/lua_runtime.h"

/* Runs `chunk` with (cdef, checks) as arguments; returns NULL or the
 * error text (owned by the state, valid until it is closed). */
static const char *run_lua(lua_State *L, const char *chunk, const char *a, const char *b) {
    if (luaL_loadstring(L, chunk) != 0) return lua_tostring(L, -1);
    lua_pushstring(L, a);
    lua_pushstring(L, b);
    if (lua_pcall(L, 2, 0, 0) != 0) return lua_tostring(L, -1);
    return NULL;
}

/* checks: "type size align" and "type field offset size" lines, in the
 * order of the cdef's struct members (padding excluded). A field's size is
 * that of a struct holding its declaration alone. */
static const char LAYOUTS[] =
    "local cdef, checks = ...\n"
    "local ffi = require('ffi')\n"
    "ffi.cdef(cdef)\n"
    "local decls = {}\n"
    "for t, body in cdef:gmatch('typedef struct [^{]- ([%w_]+) {\\n(.-)\\n}') do\n"
    "  local list = {}\n"
    "  for d in body:gmatch('  ([^\\n]-);') do\n"
    "    if not d:match('^uint8_t _pad') then list[#list + 1] = d end\n"
    "  end\n"
    "  decls[t] = list\n"
    "end\n"
    "local bad, k, cur = {}, 0, nil\n"
    "for line in checks:gmatch('[^\\n]+') do\n"
    "  local t, a, b, c = line:match('^(%S+) (%S+) (%S+) ?(%S*)$')\n"
    "  if c == '' then\n"
    "    cur, k = t, 0\n"
    "    if ffi.sizeof(t) ~= tonumber(a) or ffi.alignof(t) ~= tonumber(b) then\n"
    "      bad[#bad + 1] = ('%s: FFI size %d align %d, C size %s align %s'):format(\n"
    "        t, ffi.sizeof(t), ffi.alignof(t), a, b)\n"
    "    end\n"
    "  else\n"
    "    k = k + 1\n"
    "    local d = decls[cur][k]\n"
    "    local off = ffi.offsetof(t, a)\n"
    "    local size = ffi.sizeof(ffi.typeof('struct { ' .. d .. '; }'))\n"
    "    if off ~= tonumber(b) or size ~= tonumber(c) then\n"
    "      bad[#bad + 1] = ('%s.%s (%s): FFI offset %s size %d, C offset %s size %s'):format(\n"
    "        t, a, d, tostring(off), size, b, c)\n"
    "    end\n"
    "  end\n"
    "end\n"
    "if #bad > 0 then error(table.concat(bad, '\\n'), 0) end\n";

static void test_layouts_match(void **state) {
    (void)state;
    ms_buf cdef = {0}, checks = {0};
    assert_true(ms_lua_abi_build(MS_LUA_ABI_HOST, &cdef, &checks));
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    const char *err = run_lua(L, LAYOUTS, cdef.data, checks.data);
    if (err) fail_msg("the FFI declarations disagree with C:\n%s", err);
    lua_close(L);
    ms_buf_free(&cdef);
    ms_buf_free(&checks);
}

/* Every MS_* name a runtime module reads from ffi.C is declared; no module
 * writes a number into a frame's result, a filter code or an operation. */
static const char NAMES[] =
    "local cdef, src = ...\n"
    "local ffi = require('ffi')\n"
    "ffi.cdef(cdef)\n"
    "local bad = {}\n"
    "for name in src:gmatch('C%.(MS_[%w_]+)') do\n"
    "  if not pcall(function() return ffi.C[name] end) then\n"
    "    bad[#bad + 1] = name .. ' is not declared'\n"
    "  end\n"
    "end\n"
    "for _, p in ipairs({'F%.result%s*=%s*[^\\n]-%f[%w_]%d', 'codes%[[^%]]+%]%s*=%s*[^\\n]-%f[%w_]%d',\n"
    "                    'ops%[%s*%d', 'F%.op%s*[=~]=%s*%d'}) do\n"
    "  for hit in src:gmatch(p) do bad[#bad + 1] = 'a bare number: ' .. hit end\n"
    "end\n"
    "if #bad > 0 then error(table.concat(bad, '\\n'), 0) end\n";

static void test_runtime_names_constants(void **state) {
    (void)state;
    ms_buf cdef = {0}, checks = {0};
    assert_true(ms_lua_abi_build(MS_LUA_ABI_RUNTIME, &cdef, &checks));
    size_t nmodules = 0;
    for (const ms_lua_module *m = ms_lua_modules; m->name; m++, nmodules++) {
        lua_State *L = luaL_newstate();
        luaL_openlibs(L);
        const char *err = run_lua(L, NAMES, cdef.data, m->src);
        if (err) fail_msg("%s: %s", m->chunkname, err);
        lua_close(L);
    }
    assert_true(nmodules >= 4);
    ms_buf_free(&cdef);
    ms_buf_free(&checks);
}

/* The runtime's own check at load time, and a host's declarations. */
static void test_cdef_for_hosts(void **state) {
    (void)state;
    char *text = ms_lua_ffi_cdef();
    assert_non_null(text);
    assert_non_null(strstr(text, "ms_plugin_ops"));
    assert_non_null(strstr(text, "MS_LUA_FILTER_REJECT_UNRESOLVABLE = 2"));
    assert_non_null(strstr(text, "MS_UNSCHEDULABLE_AND_UNRESOLVABLE = 3"));
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_match),
        cmocka_unit_test(test_runtime_names_constants),
        cmocka_unit_test(test_cdef_for_hosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
