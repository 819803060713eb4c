/* Lua 5.4's twin of handoff.c, for comparison in the instruction-count
 * report (not checked against the baseline: it measures Lua, not Sense).
 *
 * One round trip: `lua_pushinteger`, `lua_resume` of a coroutine whose
 * body is a C function yielding its argument + 1 (itself as the
 * continuation), `lua_tointegerx` of the yielded value, pop: the same
 * work as the Lua peer of the criterion group `handoff_vs_lua`.
 *
 * Usage: handoff_lua ROUND_TRIPS   (prints the sum of the values read back) */
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>

static int step(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    (void)ctx;
    lua_Integer x = lua_gettop(L) > 0 ? lua_tointeger(L, -1) : 0;
    lua_settop(L, 0);
    lua_pushinteger(L, x + 1);
    return lua_yieldk(L, 1, 0, step);
}

static int body(lua_State *L) { return step(L, LUA_OK, 0); }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s ROUND_TRIPS\n", argv[0]);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    lua_State *L = luaL_newstate();
    lua_State *co = lua_newthread(L);
    lua_pushcfunction(co, body);
    int nres = 0;
    if (lua_resume(co, NULL, 0, &nres) != LUA_YIELD) return 1;
    lua_pop(co, nres);
    long long sum = 0;
    for (long i = 0; i < n; i++) {
        lua_pushinteger(co, i);
        if (lua_resume(co, NULL, 1, &nres) != LUA_YIELD) return 1;
        lua_Integer got = lua_tointeger(co, -1);
        lua_pop(co, nres);
        if (got != i + 1) {
            fprintf(stderr, "round trip %ld read %lld\n", i, (long long)got);
            return 1;
        }
        sum += got;
    }
    lua_close(L);
    printf("%lld\n", sum);
    return 0;
}
