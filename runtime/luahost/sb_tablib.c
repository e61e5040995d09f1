/* sb_tablib: table.insert/remove/move/concat/sort/unpack, charged per element. Part
 * of the sandbox (sandbox.h is the contract; sandbox_internal.h what the
 * parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Table functions whose loops are bounded only by a length the agent
 * controls (#t, __len, explicit ranges): insert, remove, move, concat, sort.
 * Same behaviour as Lua's, with every iteration charged.                    */

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4
#define TAB_UNITS 8 /* charge per element: a few API calls each */

static void tab_check(lua_State *L, int arg, int what)
{
    if (lua_type(L, arg) == LUA_TTABLE)
        return;
    int ok = 1;
    if ((what & TAB_R) && luaL_getmetafield(L, arg, "__index") == LUA_TNIL)
        ok = 0;
    else if (what & TAB_R)
        lua_pop(L, 1);
    if (ok && (what & TAB_W) && luaL_getmetafield(L, arg, "__newindex") == LUA_TNIL)
        ok = 0;
    else if (ok && (what & TAB_W))
        lua_pop(L, 1);
    if (ok && (what & TAB_L) && luaL_getmetafield(L, arg, "__len") == LUA_TNIL)
        ok = 0;
    else if (ok && (what & TAB_L))
        lua_pop(L, 1);
    if (!ok)
        luaL_checktype(L, arg, LUA_TTABLE); /* raises the usual message */
}

static lua_Integer tab_len(lua_State *L, int arg, int what)
{
    tab_check(L, arg, what | TAB_L);
    return luaL_len(L, arg);
}

static int sb_tinsert(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer e = tab_len(L, 1, TAB_R | TAB_W);
    lua_Integer pos;
    e = (lua_Integer)((lua_Unsigned)e + 1u); /* first empty slot */
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            sb_charge(L, sb, TAB_UNITS);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int sb_tremove(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer size = tab_len(L, 1, TAB_R | TAB_W);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        sb_charge(L, sb, TAB_UNITS);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int sb_tmove(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    tab_check(L, 1, TAB_R);
    tab_check(L, tt, TAB_W);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < n; i++) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n - 1; i >= 0; i--) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

static void tconcat_add(lua_State *L, luaL_Buffer *b, lua_Integer i)
{
    lua_geti(L, 1, i);
    if (!lua_isstring(L, -1))
        luaL_error(L, "invalid value (at index %I) in table for 'concat'", (LUAI_UACINT)i);
    luaL_addvalue(b);
}

static int sb_tconcat(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    luaL_Buffer b;
    lua_Integer last = tab_len(L, 1, TAB_R);
    size_t lsep;
    const char *sep = luaL_optlstring(L, 2, "", &lsep);
    lua_Integer i = luaL_optinteger(L, 3, 1);
    last = luaL_optinteger(L, 4, last);
    luaL_buffinit(L, &b);
    for (; i < last; i++) {
        sb_charge(L, sb, TAB_UNITS + lsep / 16);
        tconcat_add(L, &b, i);
        luaL_addlstring(&b, sep, lsep);
    }
    if (i == last)
        tconcat_add(L, &b, i);
    luaL_pushresult(&b);
    return 1;
}

/* table.sort: an introsort. Quicksort with a median-of-three pivot kept on
 * the stack; a range that recurses too deep is finished by heapsort, so the
 * number of comparisons is O(n log n) whatever the comparator answers (an
 * inconsistent or C-function comparator cannot make it loop), and every
 * comparison is charged. */
static int sort_lt(lua_State *L, int a, int b) /* absolute stack indexes */
{
    if (lua_isnil(L, 2))
        return lua_compare(L, a, b, LUA_OPLT);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, a);
    lua_pushvalue(L, b);
    lua_call(L, 2, 1);
    int r = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return r;
}

static int sort_lt_ij(lua_State *L, aw_sandbox *sb, lua_Integer i, lua_Integer j)
{
    sb_charge(L, sb, TAB_UNITS);
    lua_geti(L, 1, i);
    lua_geti(L, 1, j);
    int top = lua_gettop(L);
    int r = sort_lt(L, top - 1, top);
    lua_pop(L, 2);
    return r;
}

static void sort_swap(lua_State *L, lua_Integer a, lua_Integer b)
{
    lua_geti(L, 1, a);
    lua_geti(L, 1, b);
    lua_seti(L, 1, a);
    lua_seti(L, 1, b);
}

/* Heapsort of t[lo..hi]: heap position k lives at index lo + k - 1. */
static void sort_sift(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer root, lua_Integer end)
{
    lua_Integer child;
    while ((child = 2 * root) <= end) {
        if (child + 1 <= end && sort_lt_ij(L, sb, lo + child - 1, lo + child))
            child++;
        if (!sort_lt_ij(L, sb, lo + root - 1, lo + child - 1))
            return;
        sort_swap(L, lo + root - 1, lo + child - 1);
        root = child;
    }
}

static void sort_heap(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer hi)
{
    lua_Integer n = hi - lo + 1;
    for (lua_Integer i = n / 2; i >= 1; i--)
        sort_sift(L, sb, lo, i, n);
    for (lua_Integer end = n; end > 1; end--) {
        sort_swap(L, lo, lo + end - 1);
        sort_sift(L, sb, lo, 1, end - 1);
    }
}

static void sort_range(lua_State *L, aw_sandbox *sb, lua_Integer lo, lua_Integer hi, int depth)
{
    while (hi > lo) {
        if (depth-- <= 0) {
            sort_heap(L, sb, lo, hi);
            return;
        }
        lua_Integer mid = lo + (hi - lo) / 2;
        if (sort_lt_ij(L, sb, mid, lo))
            sort_swap(L, mid, lo);
        if (sort_lt_ij(L, sb, hi, mid)) {
            sort_swap(L, hi, mid);
            if (sort_lt_ij(L, sb, mid, lo))
                sort_swap(L, mid, lo);
        }
        if (hi - lo <= 2)
            return; /* three (or two) elements, now in order */
        /* t[lo] <= pivot <= t[hi]; the pivot moves to hi - 1 and stays on
         * the stack, and t[lo] and t[hi - 1] stop the two scans. */
        lua_geti(L, 1, mid);
        int piv = lua_gettop(L);
        sort_swap(L, mid, hi - 1);
        lua_Integer i = lo, j = hi - 1;
        for (;;) {
            for (;;) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, ++i);
                int lt = sort_lt(L, lua_gettop(L), piv);
                lua_pop(L, 1);
                if (!lt)
                    break;
                if (i >= hi - 1)
                    luaL_error(L, "invalid order function for sorting");
            }
            for (;;) {
                sb_charge(L, sb, TAB_UNITS);
                lua_geti(L, 1, --j);
                int lt = sort_lt(L, piv, lua_gettop(L));
                lua_pop(L, 1);
                if (!lt)
                    break;
                if (j <= lo)
                    luaL_error(L, "invalid order function for sorting");
            }
            if (j < i)
                break;
            sort_swap(L, i, j);
        }
        lua_pop(L, 1);
        sort_swap(L, i, hi - 1);
        /* Recurse into the smaller side, loop on the larger: O(log n) stack. */
        if (i - lo < hi - i) {
            sort_range(L, sb, lo, i - 1, depth);
            lo = i + 1;
        } else {
            sort_range(L, sb, i + 1, hi, depth);
            hi = i - 1;
        }
    }
}

static int sb_tsort(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer n = tab_len(L, 1, TAB_R | TAB_W);
    if (n > 1) {
        luaL_argcheck(L, n < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2))
            luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        int depth = 0;
        for (lua_Integer k = n; k > 0; k >>= 1)
            depth += 2;
        luaL_checkstack(L, 8, "sort");
        sort_range(L, sb, 1, n, depth);
    }
    return 0;
}

/* table.unpack: a C loop that may call __index once per element, so each
 * element is charged and the loop is stoppable (a million __index calls to
 * a C function run no Lua instruction a hook could stop). */
static int sb_tunpack(lua_State *L)
{
    aw_sandbox *sb = sb_of(L);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    lua_Integer e = luaL_opt(L, luaL_checkinteger, 3, luaL_len(L, 1));
    if (i > e)
        return 0;
    lua_Unsigned n = (lua_Unsigned)e - (lua_Unsigned)i;
    if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n)))
        return luaL_error(L, "too many results to unpack");
    for (; i < e; i++) {
        sb_charge(L, sb, 8);
        lua_geti(L, 1, i);
    }
    sb_charge(L, sb, 8);
    lua_geti(L, 1, e);
    return (int)n;
}

void sb_open_table(lua_State *L)
{
    static const luaL_Reg tab[] = {{"insert", sb_tinsert}, {"remove", sb_tremove}, {"move", sb_tmove},
                                   {"concat", sb_tconcat}, {"sort", sb_tsort},     {NULL, NULL}};
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    sb_set_funcs(L, tab);
    lua_pushcfunction(L, sb_tunpack);
    lua_setfield(L, -2, "unpack");
    lua_pop(L, 1);
}
