/* sb_chunk: chunks: the text the sandbox compiles, scanned and parsed within
 * the budget (sb_load_text), the main chunks kept across games, and dumping
 * one. Part of the sandbox (sandbox.h is the contract; sandbox_internal.h
 * what the parts share). */
#include "sandbox_internal.h"

/* load: text only, bounded size. The chunk gets the agent's globals (or
 * env) as _ENV. Lua's parser is one C call, where no hook runs, and parts of
 * it are quadratic in the shape of the source:
 *   - pending gotos (`goto`, `break`) and labels: each label scans every
 *     pending goto of its block and every label of its function, and each
 *     resolved goto is removed by shifting the rest (32 000 gotos to one
 *     label: 0.35 s);
 *   - jump lists: each `and`/`or` of an expression walks the list of the
 *     jumps before it, each `elseif`/`else` the list of the branches before
 *     it (80 000 `or`: 9 s; 40 000 `elseif`: 2 s).
 * So every text the sandbox parses (the agent's `load`, the host's
 * aw_sandbox_load, modules from the agent's folder) is first scanned
 * (sb_scan, linear): functions with too many gotos and labels, expressions
 * with too long and/or chains, ifs with too many branches, are refused, and
 * the quadratic part of the rest is charged as work units. Then it is fed to
 * the parser in pieces of SB_LOAD_PIECE bytes through a reader that charges
 * them and checks the deadline, so the linear part (up to some 7 µs a byte
 * for names looked up through dozens of nested functions with hundreds of
 * locals) stops at the budget too. */
#define SB_LOAD_PIECE 1024
#define SB_SCAN_MAX_JUMPS 4096  /* gotos + breaks + labels in one function */
#define SB_SCAN_MAX_CHAIN 4096  /* and/or in one expression; branches of one if */
#define SB_SCAN_MAX_LEVELS 1000 /* brackets and blocks (Lua allows some 200) */

enum { SC_FUNC, SC_BLOCK, SC_IF, SC_REPEAT, SC_GROUP, SC_CALL, SC_INDEX, SC_TABLE };

typedef struct sb_scan_level {
    unsigned char kind;
    uint32_t chain;    /* length of the jump list of the current and/or chain */
    uint32_t branches; /* elseif/else so far (SC_IF) */
    uint32_t jumps;    /* gotos, breaks and labels so far (SC_FUNC) */
} sb_scan_level;

typedef struct sb_scan {
    sb_scan_level lv[SB_SCAN_MAX_LEVELS];
    int n;
    uint64_t quad_jumps; /* estimated goto/label work: sum of jumps^2 per function */
    uint64_t quad_lists; /* estimated jump-list steps */
    int line;
    int in_label; /* between the two "::" of a label */
    const char *why;
} sb_scan;

static int scan_word(const char *p, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n == k && memcmp(p, w, k) == 0;
}

/* The level of the function that encloses the top. */
static sb_scan_level *scan_func(sb_scan *sc)
{
    for (int i = sc->n - 1; i > 0; i--)
        if (sc->lv[i].kind == SC_FUNC)
            return &sc->lv[i];
    return &sc->lv[0];
}

static int scan_push(sb_scan *sc, int kind)
{
    if (sc->n >= SB_SCAN_MAX_LEVELS) {
        sc->why = "chunk has too many syntax levels";
        return 0;
    }
    memset(&sc->lv[sc->n], 0, sizeof sc->lv[0]);
    sc->lv[sc->n++].kind = (unsigned char)kind;
    return 1;
}

static void scan_pop(sb_scan *sc)
{
    if (sc->n <= 1)
        return; /* unbalanced: the parser reports it */
    sb_scan_level *top = &sc->lv[--sc->n], *up = &sc->lv[sc->n - 1];
    if (top->kind == SC_FUNC)
        sc->quad_jumps += (uint64_t)top->jumps * top->jumps;
    else if (top->kind == SC_GROUP) { /* (a or b) keeps its jump lists */
        sc->quad_lists += top->chain;
        up->chain += top->chain;
    }
}

/* Skips a long bracket [==[ ... ]==] at p (p[0] == '['); returns the end, or
 * NULL if p does not open one. */
static const char *scan_long(sb_scan *sc, const char *p, const char *e)
{
    const char *q = p + 1;
    size_t level = 0;
    while (q < e && *q == '=')
        q++, level++;
    if (q >= e || *q != '[')
        return NULL;
    for (q++; q < e; q++) {
        if (*q == '\n')
            sc->line++;
        else if (*q == ']') {
            const char *r = q + 1;
            size_t k = 0;
            while (r < e && *r == '=' && k < level)
                r++, k++;
            if (k == level && r < e && *r == ']')
                return r + 1;
        }
    }
    return e;
}

/* Scans a chunk's text (see above); returns 0 with sc->why when it is refused. */
static int sb_scan_text(lua_State *L, aw_sandbox *sb, sb_scan *sc, const char *s, size_t len)
{
    const char *p = s, *e = s + len, *next_check = s + 65536;
    int operand = 0; /* the last token ends an operand: a '(' after it is a call */
    sc->n = 0;
    sc->quad_jumps = sc->quad_lists = 0;
    sc->line = 1;
    sc->in_label = 0;
    sc->why = NULL;
    scan_push(sc, SC_FUNC);
    while (p < e) {
        if (p >= next_check) { /* the scan itself is linear, but long: keep to the deadline */
            next_check = p + 65536;
            sb_check(L, sb);
        }
        sb_scan_level *top = &sc->lv[sc->n - 1];
        unsigned char c = (unsigned char)*p;
        if (c == '\n') {
            sc->line++;
            p++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            p++;
            continue;
        }
        if (c == '-' && p + 1 < e && p[1] == '-') { /* comment */
            const char *q = p + 2 < e && p[2] == '[' ? scan_long(sc, p + 2, e) : NULL;
            if (q)
                p = q;
            else
                while (p < e && *p != '\n')
                    p++;
            continue;
        }
        if (c == '[') {
            const char *q = scan_long(sc, p, e);
            if (q) { /* a long string */
                p = q;
                operand = 1;
                continue;
            }
        }
        if (c == '"' || c == '\'') {
            for (p++; p < e && (unsigned char)*p != c && *p != '\n'; p++)
                if (*p == '\\' && p + 1 < e && *++p == '\n')
                    sc->line++;
            p++;
            operand = 1;
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9') ||
            (c == '.' && p + 1 < e && p[1] >= '0' && p[1] <= '9')) {
            const char *w = p;
            int number = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_');
            while (p < e) {
                unsigned char d = (unsigned char)*p;
                if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || d == '_' || (d >= '0' && d <= '9') ||
                    (number && d == '.'))
                    p++;
                else if (number && (d == '+' || d == '-') && strchr("eEpP", p[-1]))
                    p++;
                else
                    break;
            }
            size_t n = (size_t)(p - w);
            operand = 1;
            if (number || n < 2 || n > 8 || !strchr("abdefgilnortuw", w[0]))
                continue; /* not a keyword */
            if (scan_word(w, n, "and") || scan_word(w, n, "or")) {
                sc->quad_lists += top->chain;
                if (++top->chain > SB_SCAN_MAX_CHAIN) {
                    sc->why = "expression too complex (too many 'and'/'or' in a row)";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "not")) {
                operand = 0;
            } else if (scan_word(w, n, "nil") || scan_word(w, n, "true") || scan_word(w, n, "false")) {
                /* operands */
            } else if (scan_word(w, n, "function")) {
                if (!scan_push(sc, SC_FUNC))
                    return 0;
                operand = 0;
            } else if (scan_word(w, n, "if") || scan_word(w, n, "do") || scan_word(w, n, "repeat")) {
                top->chain = 0;
                if (!scan_push(sc, w[0] == 'i' ? SC_IF : w[0] == 'd' ? SC_BLOCK : SC_REPEAT))
                    return 0;
                operand = 0;
            } else if (scan_word(w, n, "end")) {
                scan_pop(sc);
                sc->lv[sc->n - 1].chain = 0;
            } else if (scan_word(w, n, "until")) {
                scan_pop(sc);
                sc->lv[sc->n - 1].chain = 0;
                operand = 0;
            } else if (scan_word(w, n, "elseif") || scan_word(w, n, "else")) {
                top->chain = 0;
                sc->quad_lists += top->branches;
                if (++top->branches > SB_SCAN_MAX_CHAIN) {
                    sc->why = "if statement with too many 'elseif' branches";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "goto") || scan_word(w, n, "break")) {
                top->chain = 0;
                if (++scan_func(sc)->jumps > SB_SCAN_MAX_JUMPS) {
                    sc->why = "function with too many gotos, breaks and labels";
                    return 0;
                }
                operand = 0;
            } else if (scan_word(w, n, "then") || scan_word(w, n, "while") || scan_word(w, n, "for") ||
                       scan_word(w, n, "in") || scan_word(w, n, "local") || scan_word(w, n, "return")) {
                top->chain = 0;
                operand = 0;
            }
            continue;
        }
        p++;
        int was_operand = operand;
        operand = 0;
        switch (c) {
        case ':':
            if (p < e && *p == ':') { /* a label's "::" (two per label) */
                p++;
                top->chain = 0;
                sc->in_label = !sc->in_label;
                if (sc->in_label && ++scan_func(sc)->jumps > SB_SCAN_MAX_JUMPS) {
                    sc->why = "function with too many gotos, breaks and labels";
                    return 0;
                }
            }
            break;
        case '=':
            if (p < e && *p == '=')
                p++; /* == */
            else
                top->chain = 0;
            break;
        case '<': case '>': case '~': case '/': case '.':
            while (p < e && (*p == '=' || *p == (char)c))
                p++; /* <= >= ~= << >> // .. ... */
            break;
        case ',': case ';':
            top->chain = 0;
            break;
        case '(':
            if (!scan_push(sc, was_operand ? SC_CALL : SC_GROUP))
                return 0;
            break;
        case '[':
            if (!scan_push(sc, SC_INDEX))
                return 0;
            break;
        case '{':
            if (!scan_push(sc, SC_TABLE))
                return 0;
            break;
        case ')': case ']': case '}':
            scan_pop(sc);
            operand = 1;
            break;
        default:
            break;
        }
    }
    while (sc->n > 1)
        scan_pop(sc);
    sc->quad_jumps += (uint64_t)sc->lv[0].jumps * sc->lv[0].jumps;
    return 1;
}

/* Feeds a text to the parser in pieces, charging each and checking the
 * deadline (raising the time-out here aborts the parse). */
typedef struct sb_text_reader {
    lua_State *L;
    const char *s;
    size_t left;
} sb_text_reader;

static const char *sb_text_read(lua_State *L, void *ud, size_t *size)
{
    sb_text_reader *r = ud;
    aw_sandbox *sb = sb_of(r->L);
    (void)L;
    if (r->left == 0) {
        *size = 0;
        return NULL;
    }
    size_t n = r->left < SB_LOAD_PIECE ? r->left : SB_LOAD_PIECE;
    sb_check(r->L, sb);
    sb_charge(r->L, sb, n / 8 + 1);
    const char *p = r->s;
    r->s += n;
    r->left -= n;
    *size = n;
    return p;
}

/* Parses a text chunk as load does (mode "t"), within the budget: pushes the
 * function and returns LUA_OK, or pushes the error message and returns its
 * status. A time-out during the scan or the parse is raised. */
int sb_load_text(lua_State *L, aw_sandbox *sb, const char *s, size_t len, const char *name)
{
    /* The scan's state lives in a userdata: the agent's memory, and freed by
     * the collector if the scan raises the time-out. */
    sb_scan *sc = lua_newuserdatauv(L, sizeof *sc, 0);
    if (!sb_scan_text(L, sb, sc, s, len)) {
        /* Named as Lua names chunks in messages: file, =name, [string "..."]. */
        int plain = name[0] == '=' || name[0] == '@';
        const char *id = plain ? name + 1 : name;
        char msg[200];
        snprintf(msg, sizeof msg, "%s%.*s%s:%d: %s", plain ? "" : "[string \"", (int)strcspn(id, "\n") > 60 ? 60 : (int)strcspn(id, "\n"), id,
                 plain ? "" : "\"]", sc->line, sc->why);
        lua_pop(L, 1);
        lua_pushstring(L, msg);
        return LUA_ERRSYNTAX;
    }
    /* goto/label work: about 1/16 unit a step; jump-list steps 1/4 unit. */
    uint64_t units = sc->quad_jumps / 16 + sc->quad_lists / 4;
    lua_pop(L, 1);
    if (units)
        sb_charge(L, sb, units);
    sb_text_reader r = {L, s, len};
    int status = lua_load(L, sb_text_read, &r, name, "t");
    if (sb->expired)
        return sb_raise_timeout(L, sb); /* the parser caught the reader's time-out */
    return status;
}

int sb_chunk_get(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_chunks);
    lua_insert(L, -2);
    if (lua_rawget(L, -2) != LUA_TFUNCTION) {
        lua_pop(L, 2);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

void sb_chunk_keep(lua_State *L, size_t before)
{
    aw_sandbox *sb = sb_of(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &sb_key_chunks);
    lua_insert(L, -2);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    if (sb->used > before)
        sb->kept_bytes += sb->used - before;
}

static int sb_dump_writer(lua_State *L, const void *p, size_t sz, void *ud)
{
    (void)L;
    aw_buf_add(ud, p, sz);
    return 0;
}

void aw_sandbox_dump(lua_State *L, aw_buf *out)
{
    aw_sandbox *sb = sb_of(L);
    sb->in_alloc = 1; /* host malloc: the last resort must not jump out of it */
    lua_dump(L, sb_dump_writer, out, 0);
    sb->in_alloc = 0;
}
