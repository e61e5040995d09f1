/* lualint: `aiwolf lint`'s checks of an agent file (see lualint.h). */
#include "lualint.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "luamods.h"
#include "sandbox.h"

const char *const aw_agent_methods[] = {"getName", "initialize", "update", "dayStart", "talk", "whisper",
                                        "vote",    "divine",     "guard",  "attack",   "finish", NULL};

/* Names an agent's table may also have that aiwolf.agent's base agent
 * calls or provides: not typos of the methods above. */
static const char *const base_hooks[] = {"onTalk", "onWhisper", "claimantsOf", "estimated", NULL};

/* ---- findings ---------------------------------------------------------- */

enum { F_GLOBAL_SET, F_GLOBAL_GET, F_FIELD };

typedef struct finding {
    int kind;
    char name[96]; /* the global, or "lib.field" */
    long line;     /* first place */
    int count;     /* places */
} finding;

typedef struct lint {
    const char *path;
    aw_buf *findings, *notes;
    int nfindings;
    /* the scan's results, reported once it is complete */
    finding *found;
    int nfound, capfound;
    /* the dump of the compiled chunk */
    aw_buf dump;
    const char *src;
    size_t len;
    bool bad_format;
    int ref; /* the agent's table, for inspect_agent */
    /* method findings, sorted by place before they are reported (the
     * table's traversal order is not stable) */
    struct mfind {
        char where[300];
        long line;
        char text[200];
    } *mf;
    int nmf, capmf;
} lint;

static void add_method_finding(lint *l, const char *where, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_method_finding(lint *l, const char *where, long line, const char *fmt, ...)
{
    if (l->nmf == l->capmf) {
        l->capmf = l->capmf ? 2 * l->capmf : 8;
        l->mf = aw_xrealloc(l->mf, (size_t)l->capmf * sizeof *l->mf);
    }
    struct mfind *m = &l->mf[l->nmf++];
    snprintf(m->where, sizeof m->where, "%s", where);
    m->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof m->text, fmt, ap);
    va_end(ap);
}

static int cmp_mfind(const void *a, const void *b)
{
    const struct mfind *x = a, *y = b;
    int c = strcmp(x->where, y->where);
    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line ? 1 : strcmp(x->text, y->text);
}

static void add_found(lint *l, int kind, const char *name, size_t nlen, long line)
{
    if (nlen >= sizeof l->found[0].name)
        nlen = sizeof l->found[0].name - 1;
    for (int i = 0; i < l->nfound; i++) {
        finding *f = &l->found[i];
        if (f->kind == kind && strlen(f->name) == nlen && memcmp(f->name, name, nlen) == 0) {
            f->count++;
            if (line < f->line)
                f->line = line;
            return;
        }
    }
    if (l->nfound == l->capfound) {
        l->capfound = l->capfound ? 2 * l->capfound : 16;
        l->found = aw_xrealloc(l->found, (size_t)l->capfound * sizeof *l->found);
    }
    finding *f = &l->found[l->nfound++];
    f->kind = kind;
    memcpy(f->name, name, nlen);
    f->name[nlen] = 0;
    f->line = line;
    f->count = 1;
}

static bool was_set(const lint *l, const char *name)
{
    for (int i = 0; i < l->nfound; i++)
        if (l->found[i].kind == F_GLOBAL_SET && strcmp(l->found[i].name, name) == 0)
            return true;
    return false;
}

/* ---- reading Lua 5.4's dump format (ldump.c) ---------------------------- */

typedef struct reader {
    const unsigned char *p, *end;
    bool bad;
} reader;

static unsigned rd_byte(reader *r)
{
    if (r->p >= r->end) {
        r->bad = true;
        return 0;
    }
    return *r->p++;
}

/* sizes and ints: 7 bits a byte, most significant first, the last byte
 * marked with 0x80 */
static size_t rd_size(reader *r)
{
    size_t x = 0;
    for (int i = 0; i < 10; i++) {
        unsigned b = rd_byte(r);
        x = (x << 7) | (b & 0x7f);
        if (b & 0x80 || r->bad)
            return x;
    }
    r->bad = true;
    return 0;
}

static const unsigned char *rd_skip(reader *r, size_t n)
{
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        return NULL;
    }
    const unsigned char *at = r->p;
    r->p += n;
    return at;
}

/* A string: its bytes (not NUL-terminated) and length, or NULL for none. */
static const char *rd_string(reader *r, size_t *len)
{
    size_t n = rd_size(r);
    *len = 0;
    if (n == 0 || r->bad)
        return NULL;
    *len = n - 1;
    return (const char *)rd_skip(r, n - 1);
}

typedef struct kstr {
    const char *s; /* NULL: not a string constant */
    size_t len;
} kstr;

/* Lua 5.4 opcodes the scan looks at (lopcodes.h) and the iABC fields. */
enum { OP_GETTABUP = 11, OP_GETFIELD = 14, OP_SETTABUP = 15 };
#define I_OP(i) ((unsigned)(i) & 0x7f)
#define I_A(i) (((unsigned)(i) >> 7) & 0xff)
#define I_B(i) (((unsigned)(i) >> 16) & 0xff)
#define I_C(i) (((unsigned)(i) >> 24) & 0xff)
#define ABSLINEINFO (-0x80)

static bool is_global_table(lua_State *L, const char *name, size_t len)
{
    lua_pushglobaltable(L);
    lua_pushlstring(L, name, len);
    bool t = lua_rawget(L, -2) == LUA_TTABLE;
    lua_pop(L, 2);
    return t;
}

static bool has_field(lua_State *L, const char *lib, size_t liblen, const char *field, size_t flen)
{
    lua_pushglobaltable(L);
    lua_pushlstring(L, lib, liblen);
    lua_rawget(L, -2);
    aw_sandbox_fill(L, -1);
    lua_pushlstring(L, field, flen);
    bool has = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 3);
    return has;
}

/* Reads one function of the dump (and, first, its nested functions) and
 * records the globals its code touches through the upvalue _ENV. */
static void scan_function(lint *l, lua_State *L, reader *r, int depth)
{
    if (depth > 250) {
        r->bad = true;
        return;
    }
    size_t n;
    rd_string(r, &n); /* source */
    long linedefined = (long)rd_size(r);
    rd_size(r); /* lastlinedefined */
    rd_skip(r, 3); /* numparams, is_vararg, maxstacksize */
    size_t ncode = rd_size(r);
    const unsigned char *code = rd_skip(r, ncode * 4);
    size_t nk = rd_size(r);
    if (r->bad || nk > (size_t)(r->end - r->p))
        return (void)(r->bad = true);
    kstr *k = aw_xcalloc(nk ? nk : 1, sizeof *k);
    for (size_t i = 0; i < nk && !r->bad; i++) {
        unsigned tt = rd_byte(r);
        switch (tt) {
        case 0x03: /* integer */
        case 0x13: /* float */
            rd_skip(r, 8);
            break;
        case 0x04: /* short string */
        case 0x14: /* long string */
            k[i].s = rd_string(r, &k[i].len);
            break;
        case 0x00: /* nil */
        case 0x01: /* false */
        case 0x11: /* true */
            break;
        default:
            r->bad = true;
        }
    }
    size_t nup = rd_size(r);
    rd_skip(r, nup * 3);
    size_t nprotos = rd_size(r);
    for (size_t i = 0; i < nprotos && !r->bad; i++)
        scan_function(l, L, r, depth + 1);
    size_t nline = rd_size(r);
    const signed char *lineinfo = (const signed char *)rd_skip(r, nline);
    size_t nabs = rd_size(r);
    if (r->bad || nabs > (size_t)(r->end - r->p)) {
        free(k);
        r->bad = true;
        return;
    }
    long *abspc = aw_xcalloc(nabs ? nabs : 1, sizeof *abspc), *absline = aw_xcalloc(nabs ? nabs : 1, sizeof *absline);
    for (size_t i = 0; i < nabs; i++) {
        abspc[i] = (long)rd_size(r);
        absline[i] = (long)rd_size(r);
    }
    size_t nloc = rd_size(r);
    for (size_t i = 0; i < nloc && !r->bad; i++) {
        rd_string(r, &n);
        rd_size(r);
        rd_size(r);
    }
    size_t nupnames = rd_size(r);
    int env = -1; /* the upvalue that is _ENV */
    for (size_t i = 0; i < nupnames && !r->bad; i++) {
        const char *s = rd_string(r, &n);
        if (s && n == 4 && memcmp(s, "_ENV", 4) == 0 && env < 0)
            env = (int)i;
    }
    if (!r->bad && env >= 0 && code && (nline == ncode || nline == 0)) {
        long line = linedefined;
        size_t ai = 0;
        for (size_t pc = 0; pc < ncode; pc++) {
            uint32_t ins;
            memcpy(&ins, code + 4 * pc, 4);
            if (nline) {
                if (lineinfo[pc] == ABSLINEINFO) {
                    while (ai < nabs && abspc[ai] < (long)pc)
                        ai++;
                    if (ai < nabs)
                        line = absline[ai];
                } else {
                    line += lineinfo[pc];
                }
            }
            unsigned op = I_OP(ins);
            if (op == OP_SETTABUP && (int)I_A(ins) == env && I_B(ins) < nk && k[I_B(ins)].s) {
                add_found(l, F_GLOBAL_SET, k[I_B(ins)].s, k[I_B(ins)].len, line);
            } else if (op == OP_GETTABUP && (int)I_B(ins) == env && I_C(ins) < nk && k[I_C(ins)].s) {
                const kstr *g = &k[I_C(ins)];
                lua_pushglobaltable(L);
                aw_sandbox_fill(L, -1); /* the globals are a proxy until then (sb_proxy.c) */
                lua_pushlstring(L, g->s, g->len);
                bool known = lua_rawget(L, -2) != LUA_TNIL;
                lua_pop(L, 2);
                if (!known) {
                    add_found(l, F_GLOBAL_GET, g->s, g->len, line);
                } else if (pc + 1 < ncode && is_global_table(L, g->s, g->len)) {
                    /* lib.field: GETTABUP R _ENV "lib"; GETFIELD R' R "field" */
                    uint32_t next;
                    memcpy(&next, code + 4 * (pc + 1), 4);
                    if (I_OP(next) == OP_GETFIELD && I_B(next) == I_A(ins) && I_C(next) < nk && k[I_C(next)].s &&
                        !has_field(L, g->s, g->len, k[I_C(next)].s, k[I_C(next)].len)) {
                        char name[96];
                        int m = snprintf(name, sizeof name, "%.*s.%.*s", (int)(g->len > 40 ? 40 : g->len), g->s,
                                         (int)(k[I_C(next)].len > 40 ? 40 : k[I_C(next)].len), k[I_C(next)].s);
                        add_found(l, F_FIELD, name, (size_t)m, line);
                    }
                }
            }
        }
    }
    free(k);
    free(abspc);
    free(absline);
}

/* Header of a dump made by this very Lua (ldump.c dumpHeader). */
static bool scan_dump(lint *l, lua_State *L)
{
    reader r = {(const unsigned char *)l->dump.data, (const unsigned char *)l->dump.data + l->dump.len, false};
    static const unsigned char head[] = {0x1b, 'L', 'u', 'a', 0x54, 0, 0x19, 0x93, '\r', '\n', 0x1a, '\n', 4, 8, 8};
    const unsigned char *h = rd_skip(&r, sizeof head);
    if (!h || memcmp(h, head, sizeof head) != 0)
        return false;
    rd_skip(&r, 8 + 8 + 1); /* LUAC_INT, LUAC_NUM, the main closure's upvalue count */
    scan_function(l, L, &r, 0);
    return !r.bad && r.p == r.end;
}

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    aw_buf_add(ud, p, sz);
    return 0;
}

/* In a fresh sandbox: compile the file with the sandbox's own load (the
 * same limits as a game's), dump it and scan it against the sandbox's
 * globals. */
static int run_scan(lua_State *L)
{
    lint *l = lua_touserdata(L, 1);
    if (l->len > ((size_t)1 << 20)) {
        /* the sandbox's load takes 1 MiB; the host's own load of an agent
         * file takes more: skip the scan, the load below still runs */
        aw_buf_printf(l->notes, "%s: note: larger than 1 MiB: globals not checked\n", l->path);
        lua_pushboolean(L, 1);
        lua_setfield(L, LUA_REGISTRYINDEX, "aw_lint_compiled");
        return 0;
    }
    lua_getglobal(L, "load");
    lua_pushlstring(L, l->src, l->len);
    lua_pushfstring(L, "@%s", l->path);
    lua_pushliteral(L, "t");
    lua_call(L, 3, 2);
    if (lua_isnil(L, -2)) {
        const char *msg = lua_tostring(L, -1);
        aw_buf_printf(l->findings, "%s\n", msg ? msg : "the file does not compile");
        l->nfindings++;
        lua_pushboolean(L, 0);
        lua_setfield(L, LUA_REGISTRYINDEX, "aw_lint_compiled");
        return 0;
    }
    lua_pop(L, 1);
    lua_dump(L, dump_writer, &l->dump, 0);
    l->bad_format = !scan_dump(l, L);
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "aw_lint_compiled");
    return 0;
}

static int cmp_found(const void *a, const void *b)
{
    const finding *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line ? 1 : strcmp(x->name, y->name);
}

static void report_scan(lint *l)
{
    if (l->nfound > 1)
        qsort(l->found, (size_t)l->nfound, sizeof *l->found, cmp_found);
    for (int i = 0; i < l->nfound; i++) {
        const finding *f = &l->found[i];
        char more[48] = "";
        if (f->count > 1)
            snprintf(more, sizeof more, " (and %d more place%s)", f->count - 1, f->count > 2 ? "s" : "");
        switch (f->kind) {
        case F_GLOBAL_SET:
            aw_buf_printf(l->findings,
                          "%s:%ld: assignment to the global '%s'%s: make it a local (or a field of your agent "
                          "table); globals hide typos\n",
                          l->path, f->line, f->name, more);
            break;
        case F_GLOBAL_GET:
            if (was_set(l, f->name))
                continue; /* reported as an assignment */
            aw_buf_printf(l->findings,
                          "%s:%ld: '%s' is not a global of the sandbox%s: a typo, an undefined name, or a "
                          "library the sandbox leaves out (docs/sandbox.md)\n",
                          l->path, f->line, f->name, more);
            break;
        default:
            aw_buf_printf(l->findings, "%s:%ld: '%s' does not exist in the sandbox%s (docs/sandbox.md)\n", l->path,
                          f->line, f->name, more);
        }
        l->nfindings++;
    }
}

/* ---- the agent's table ------------------------------------------------- */

/* Lower case, without '_'. */
static void squash(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (*s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = 0;
}

/* Optimal string alignment distance (edits, adjacent swaps), capped. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 99;
    int d[41][41];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int c = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + c < v)
                v = d[i - 1][j - 1] + c;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

static bool in_list(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* The method the game calls that name looks like a misspelling of, or NULL. */
static const char *near_method(const char *name)
{
    if (in_list(aw_agent_methods, name) || in_list(base_hooks, name))
        return NULL;
    char sq[64], mq[64];
    squash(name, sq, sizeof sq);
    for (int i = 0; aw_agent_methods[i]; i++) {
        const char *m = aw_agent_methods[i];
        squash(m, mq, sizeof mq);
        if (strcmp(sq, mq) == 0)
            return m; /* day_start, Talk, getname */
        int d = distance(sq, mq);
        size_t ml = strlen(mq);
        if (ml <= 5 ? (d == 1 && strlen(sq) == ml) : d <= 2)
            return m;
    }
    return NULL;
}

static bool embedded_source(const char *source)
{
    if (!source || source[0] != '@')
        return false;
    for (const aw_luamod *m = aw_luamods; m->name; m++)
        if (strcmp(source + 1, m->path) == 0)
            return true;
    return false;
}

/* Other AIWolf libraries' names that this host never calls. */
static const struct {
    const char *name, *why;
} foreign[] = {
    {"dayFinish", "DAILY_FINISH calls update(info) only; put end-of-day work in update or dayStart"},
    {"day_finish", "DAILY_FINISH calls update(info) only; put end-of-day work in update or dayStart"},
    {"dailyFinish", "DAILY_FINISH calls update(info) only; put end-of-day work in update or dayStart"},
    {"dailyInitialize", "DAILY_INITIALIZE calls update(info), then dayStart()"},
    {"daily_initialize", "DAILY_INITIALIZE calls update(info), then dayStart()"},
};

static int inspect_agent(lua_State *L)
{
    lint *l = lua_touserdata(L, 1);
    lua_settop(L, 1);
    lua_pushnil(L);                           /* 2: unused */
    lua_rawgeti(L, LUA_REGISTRYINDEX, l->ref); /* 3: the agent's table */
    lua_pushvalue(L, 3);                      /* 4: the table being walked */
    for (int level = 0; level < 8 && lua_istable(L, 4); level++) {
        lua_pushnil(L);
        while (lua_next(L, 4)) {
            if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
                const char *name = lua_tostring(L, -2);
                lua_Debug ar;
                lua_pushvalue(L, -1);
                lua_getinfo(L, ">S", &ar);
                if (!embedded_source(ar.source)) {
                    char where[300];
                    long line = ar.linedefined > 0 ? ar.linedefined : 0;
                    snprintf(where, sizeof where, "%.250s", ar.source[0] == '@' ? ar.source + 1 : l->path);
                    const char *near = near_method(name);
                    bool said = false;
                    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
                        if (strcmp(name, foreign[i].name) == 0) {
                            add_method_finding(l, where, line, "method '%.60s' is never called: %s", name,
                                               foreign[i].why);
                            said = true;
                        }
                    if (near && !said) {
                        add_method_finding(l, where, line, "method '%.60s' is not one the game calls: did you mean '%s'?",
                                           name, near);
                    }
                }
            }
            lua_pop(L, 1);
        }
        /* on to the class it inherits from (raw: no agent code runs) */
        if (!lua_getmetatable(L, 4)) {
            lua_pushnil(L);
        } else {
            lua_pushliteral(L, "__index");
            lua_rawget(L, -2);
            lua_remove(L, -2);
        }
        lua_replace(L, 4);
    }

    if (l->nmf > 1)
        qsort(l->mf, (size_t)l->nmf, sizeof *l->mf, cmp_mfind);
    for (int i = 0; i < l->nmf; i++) {
        if (l->mf[i].line > 0)
            aw_buf_printf(l->findings, "%s:%ld: %s\n", l->mf[i].where, l->mf[i].line, l->mf[i].text);
        else
            aw_buf_printf(l->findings, "%s: %s\n", l->mf[i].where, l->mf[i].text);
        l->nfindings++;
    }

    /* the methods the game calls: bound to a function, or absent */
    aw_buf missing;
    aw_buf_init(&missing);
    for (int i = 0; aw_agent_methods[i]; i++) {
        lua_pushvalue(L, 3);
        int t = LUA_TNIL;
        for (int level = 0; level < 8 && lua_istable(L, -1); level++) {
            lua_pushstring(L, aw_agent_methods[i]);
            t = lua_rawget(L, -2);
            if (t != LUA_TNIL) {
                lua_pop(L, 1);
                break;
            }
            lua_pop(L, 1);
            if (!lua_getmetatable(L, -1)) {
                lua_pushnil(L);
            } else {
                lua_pushliteral(L, "__index");
                lua_rawget(L, -2);
                lua_remove(L, -2);
            }
            lua_remove(L, -2);
        }
        lua_pop(L, 1);
        if (t == LUA_TNIL) {
            aw_buf_printf(&missing, "%s%s", missing.len ? ", " : "", aw_agent_methods[i]);
        } else if (t != LUA_TFUNCTION) {
            aw_buf_printf(l->findings, "%s: '%s' is a %s, not a function: the game calls it as a method\n", l->path,
                          aw_agent_methods[i], lua_typename(L, t));
            l->nfindings++;
        }
    }
    if (missing.len)
        aw_buf_printf(l->notes, "%s: note: not defined (the rules choose for it, or it is skipped): %s\n", l->path,
                      missing.data);
    aw_buf_free(&missing);
    return 0;
}

static void sandbox_limits(const aw_luaseat_opts *opts, const char *dir, aw_sandbox_limits *lim)
{
    aw_sandbox_limits_agent(lim, opts && opts->limits.budget_ms > 0 ? opts->limits.budget_ms : 1000,
                            opts ? opts->limits.memory_bytes : 0);
    lim->module_dir = dir;
}

static aw_sandbox *new_sandbox(const aw_luaseat_opts *opts, const char *dir, aw_error *err)
{
    aw_sandbox_limits lim;
    sandbox_limits(opts, dir, &lim);
    aw_sandbox *sb = aw_sandbox_new(&lim, err);
    if (!sb)
        return NULL;
    if (opts && opts->prepare && opts->prepare(sb, err) < 0) {
        aw_sandbox_free(sb);
        return NULL;
    }
    return sb;
}

static void add_fault(lint *l, const aw_fault *f)
{
    size_t n = strlen(l->path);
    if (strncmp(f->msg, l->path, n) == 0 && f->msg[n] == ':')
        aw_buf_printf(l->findings, "%s\n", f->msg);
    else
        aw_buf_printf(l->findings, "%s: %s\n", l->path, f->msg);
    l->nfindings++;
}

void aw_lualint_return_msg(char *buf, size_t n, const char *path, const char *type)
{
    if (!strcmp(type, "nil"))
        snprintf(buf, n,
                 "%s: the file returns nothing: end it with 'return agent', the table of its methods (docs/agents.md)",
                 path);
    else
        snprintf(buf, n, "%s: the file must return a table of methods, not a %s", path, type);
}

int aw_lualint(const char *path, const aw_luaseat_opts *opts, aw_buf *findings, aw_buf *notes, aw_error *err)
{
    size_t len;
    char *src = aw_read_file(path, &len, err);
    if (!src)
        return -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? aw_xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : aw_xstrdup(".");
    lint l;
    memset(&l, 0, sizeof l);
    l.path = path;
    l.findings = findings;
    l.notes = notes;
    l.src = src;
    l.len = len;
    aw_buf_init(&l.dump);
    int result = -1;

    /* 1. compile and scan, in a sandbox where nothing of the agent runs */
    aw_sandbox *sb = new_sandbox(opts, dir, err);
    if (!sb)
        goto out;
    aw_fault fault;
    bool compiled = false;
    if (aw_sandbox_run(sb, run_scan, &l, &fault) < 0) {
        add_fault(&l, &fault);
    } else {
        lua_State *L = aw_sandbox_state(sb);
        lua_getfield(L, LUA_REGISTRYINDEX, "aw_lint_compiled");
        compiled = lua_toboolean(L, -1);
        lua_pop(L, 1);
        report_scan(&l);
        if (compiled && l.bad_format)
            aw_buf_printf(notes, "%s: note: this Lua's bytecode format is not the one lint knows: globals not checked\n",
                          path);
    }
    aw_sandbox_free(sb);
    if (!compiled) {
        result = l.nfindings;
        goto out;
    }

    /* 2. run its top level as a game would, and look at the table */
    sb = new_sandbox(opts, dir, err);
    if (!sb)
        goto out;
    char chunkname[300];
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    if (aw_sandbox_load(sb, src, len, chunkname, &fault) < 0) {
        add_fault(&l, &fault);
    } else {
        lua_State *L = aw_sandbox_state(sb);
        if (lua_type(L, -1) != LUA_TTABLE) {
            char msg[4400];
            aw_lualint_return_msg(msg, sizeof msg, path, lua_typename(L, lua_type(L, -1)));
            aw_buf_printf(findings, "%s\n", msg);
            l.nfindings++;
            lua_pop(L, 1);
        } else {
            int ref = aw_sandbox_ref(sb, &fault);
            if (ref < 0) {
                add_fault(&l, &fault);
            } else {
                l.ref = ref;
                if (aw_sandbox_run(sb, inspect_agent, &l, &fault) < 0)
                    add_fault(&l, &fault);
            }
        }
    }
    aw_sandbox_free(sb);
    result = l.nfindings;
out:
    aw_buf_free(&l.dump);
    free(l.found);
    free(l.mf);
    free(dir);
    free(src);
    return result;
}

/* ---- the luacheck standard ---------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The string keys of the table at idx, sorted (strdup'd; free them). */
static char **sorted_keys(lua_State *L, int idx, int *n)
{
    int cap = 16;
    char **keys = aw_xmalloc((size_t)cap * sizeof *keys);
    *n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
            if (*n == cap) {
                cap *= 2;
                keys = aw_xrealloc(keys, (size_t)cap * sizeof *keys);
            }
            keys[(*n)++] = aw_xstrdup(lua_tostring(L, -2));
        }
        lua_pop(L, 1);
    }
    qsort(keys, (size_t)*n, sizeof *keys, cmp_str);
    return keys;
}

static int write_std(lua_State *L)
{
    aw_buf *out = lua_touserdata(L, 1);
    lua_pushglobaltable(L);
    int g = lua_gettop(L);
    aw_sandbox_fill(L, g);
    int n;
    char **names = sorted_keys(L, g, &n);
    aw_buf_adds(out, "stds.aiwolf_sandbox = {\n  read_globals = {\n");
    for (int i = 0; i < n; i++) {
        lua_getfield(L, g, names[i]);
        if (strcmp(names[i], "_G") == 0) {
            aw_buf_adds(out, "    _G = {other_fields = true},\n");
        } else if (strcmp(names[i], "package") == 0) {
            aw_buf_adds(out, "    package = {fields = {loaded = {other_fields = true, read_only = false},\n"
                             "                         preload = {other_fields = true, read_only = false}}},\n");
        } else if (lua_istable(L, -1)) {
            int nf;
            aw_sandbox_fill(L, -1);
            char **fields = sorted_keys(L, lua_gettop(L), &nf);
            aw_buf_printf(out, "    %s = {fields = {", names[i]);
            for (int j = 0; j < nf; j++) {
                aw_buf_printf(out, "%s%s = {}", j ? ", " : "", fields[j]);
                free(fields[j]);
            }
            aw_buf_adds(out, "}},\n");
            free(fields);
        } else {
            aw_buf_printf(out, "    %s = {},\n", names[i]);
        }
        lua_pop(L, 1);
        free(names[i]);
    }
    free(names);
    aw_buf_adds(out, "  },\n}\n");
    return 0;
}

int aw_lualint_luacheck_std(aw_buf *out, aw_error *err)
{
    aw_sandbox *sb = new_sandbox(NULL, NULL, err);
    if (!sb)
        return -1;
    aw_fault fault;
    int rc = aw_sandbox_run(sb, write_std, out, &fault);
    aw_sandbox_free(sb);
    if (rc < 0)
        return aw_fail(err, AW_EINVAL, "%s", fault.msg);
    return 0;
}
